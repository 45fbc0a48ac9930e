begin;
\ir ../_fixtures.psql
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 5, 30);

select is((select count(*) from c), 1::bigint, 'the visible task is claimed');
select is((select lease_holder from c), 'runner-a/' || (select msg_id from m) || '/1', 'the lease names the runner, message and read');
select is((select lease_holder from mdame.work_units where id = (select id from u)), (select lease_holder from c), 'the unit records the lease');
select is((select count(*) from mdame.claim_stage_tasks('runner-b', 5, 30)), 0::bigint, 'a claimed task is invisible to other runners');

select * from finish();
rollback;
