begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table r as select * from mdame.reject_unit((select msg_id from m), (select id from u), 'script', 'step:t:1:late', 'late rejection');

select is((select (stage, error) from r), ('safety'::text, null::text), 'a unit past the stage is not rejected');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the late task is archived');
select is(mdame.get_step_result('step:t:1:late'), null, 'no step result is stored');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run goes on');

select * from finish();
rollback;
