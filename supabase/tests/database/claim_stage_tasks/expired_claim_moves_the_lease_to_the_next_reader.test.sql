begin;
\ir ../_fixtures.psql
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));

select is((select current_holder from h), 'runner-b/' || (select msg_id from m) || '/2', 'the second read names its runner and read count');
select isnt((select current_holder from h), (select stale_holder from h), 'so it differs from the expired claim');
select is((select lease_holder from mdame.work_units where id = (select id from u)), (select current_holder from h), 'the unit''s lease moves to the new reader');
select is((select read_ct from pgmq.q_stage_tasks where msg_id = (select msg_id from m)), 2, 'the task counts both reads');

select * from finish();
rollback;
