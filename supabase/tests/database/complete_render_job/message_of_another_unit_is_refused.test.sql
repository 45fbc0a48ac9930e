begin;
\ir ../_fixtures.psql
select plan(5);

-- Two units at render; a signed callback completes the first but names the second's message.
create temp table u1 as select * from tests.unit_at_stage('render');
create temp table u2 as select * from tests.unit_at_stage('render');
create temp table m2 as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u2))) as msg_id;

select throws_ok(format('select mdame.complete_render_job(%s, %L, ''{"video_key": "renders/x.mp4"}'', ''wh-other-unit'')',
                        (select msg_id from m2), (select id from u1)),
                 'MDS01', null, 'a callback naming the message of another unit is refused');
select ok(tests.queue_has('render', (select msg_id from m2)), 'the other unit''s job stays queued');
select is((select stage from mdame.work_units where id = (select id from u1)), 'render', 'the named unit stays at render');
select is((select video from mdame.work_units where id = (select id from u1)), null, 'no video is stored');
select throws_ok(format('select mdame.complete_render_job(987654321, %L, ''{"video_key": "renders/x.mp4"}'', ''wh-no-msg'')', (select id from u1)),
                 'MDN01', null, 'a message the queue never held is refused');

select * from finish();
rollback;
