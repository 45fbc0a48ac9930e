begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
create temp table r as select * from mdame.complete_render_job((select msg_id from m), (select id from u),
                                                               '{"video_key": "renders/v.mp4", "duration_ms": 30000}', 'wh-r1');

select is((select stage from r), 'publish', 'the unit moves to publish');
select is((select video->>'video_key' from mdame.work_units where id = (select id from u)), 'renders/v.mp4', 'the rendered video is stored');
select ok(tests.archived('render', (select msg_id from m)), 'the render job is archived');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'publish', 'unit_id', (select id from u))), 1::bigint, 'one publish task is enqueued');
select is((select kind from mdame.webhook_receipts where webhook_id = 'wh-r1'), 'render.completed', 'the callback''s webhook-id is recorded');

select * from finish();
rollback;
