begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;

select is((mdame.record_script((select msg_id from m), (select id from u), 'step:t:1:x', '{"title": "T", "narration": "n"}')).stage,
          'safety', 'the unit moves to safety');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the script task is archived');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'safety', 'unit_id', (select id from u))), 1::bigint,
          'exactly one safety task is enqueued');
select is((select result->>'title' from mdame.step_results where step_token = 'step:t:1:x'), 'T', 'the step result is stored under its token');

select * from finish();
rollback;
