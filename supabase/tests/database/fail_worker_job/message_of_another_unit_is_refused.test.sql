begin;
\ir ../_fixtures.psql
select plan(4);

-- A signed failure for one unit naming the render job of another.
create temp table u1 as select * from tests.unit_at_stage('render');
create temp table u2 as select * from tests.unit_at_stage('render');
create temp table m2 as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u2), 'run_id', (select run_id from u2))) as msg_id;

select throws_ok(format('select mdame.fail_worker_job(''render'', %s, %L, ''ffmpeg crashed'', false, ''wh-other'')', (select msg_id from m2), (select id from u1)),
                 'MDS01', null, 'a failure naming the job of another unit is refused');
select ok(tests.queue_has('render', (select msg_id from m2)), 'the other unit''s job stays queued');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m2) and queue_name = 'render'), 0::bigint, 'nothing is dead-lettered');
select is((select stage from mdame.work_units where id = (select id from u1)), 'render', 'the named unit does not fail');

select * from finish();
rollback;
