begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table r as select * from mdame.reject_unit((select msg_id from m), (select id from u), 'script', 'step:t:1:rej', 'hook audit failed twice');

select is((select (stage, error) from r), ('rejected'::text, 'hook audit failed twice'::text), 'the unit ends as rejected with the reason');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the task is archived');
select is(mdame.get_step_result('step:t:1:rej'), '{"rejected": "hook audit failed twice"}'::jsonb, 'the outcome is stored under the step token');
select is(tests.queued_count('stage_tasks', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'nothing is enqueued');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'completed', 'the run closes once its last unit is terminal');

select * from finish();
rollback;
