begin;
\ir ../_fixtures.psql
select plan(3);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table first as select * from mdame.claim_stage_tasks('runner-a', 5, 30);

select is((select count(*) from mdame.claim_stage_tasks('runner-a', 5, 30)), 0::bigint, 'the same runner claiming again gets nothing');
select is((select read_ct from pgmq.q_stage_tasks where msg_id = (select msg_id from m)), 1, 'the task is read once');
select is((select lease_holder from mdame.work_units where id = (select id from u)), (select lease_holder from first), 'the unit keeps the first lease');

select * from finish();
rollback;
