begin;
\ir ../_fixtures.psql
select plan(5);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));

create temp table late as select * from mdame.reject_unit((select msg_id from m), (select id from u), 'script', 'step:t:1:a', 'stale rejection',
                                                          (select stale_holder from h));
select is((select stage from late), 'script', 'the stale holder''s rejection is refused');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays with its new holder');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run is not closed');

create temp table fresh as select * from mdame.reject_unit((select msg_id from m), (select id from u), 'script', 'step:t:1:b', 'current rejection',
                                                           (select current_holder from h));
select is((select stage from fresh), 'rejected', 'the current holder''s rejection is recorded');
select is((select error from mdame.work_units where id = (select id from u)), 'current rejection', 'with its own reason');

select * from finish();
rollback;
