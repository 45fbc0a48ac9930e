begin;
\ir ../_fixtures.psql
select plan(5);

delete from pgmq.q_stage_tasks;
create temp table u as select 1 as n, * from tests.unit_at_stage('script');
insert into u select 2, * from tests.unit_at_stage('script');
insert into u select 3, * from tests.unit_at_stage('script');
create temp table m as select n, tests.send_task('script', id) as msg_id from u order by n;
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 2, 30);

select is(array(select msg_id from c order by msg_id), array(select msg_id from m where n in (1, 2) order by msg_id),
          'the two oldest visible tasks are claimed');
select is(array(select read_ct from c), array[1, 1], 'each claim counts one read');
select ok((select bool_and(vt > now() + interval '29 seconds') from pgmq.q_stage_tasks where msg_id in (select msg_id from c)),
          'claimed tasks are hidden for the visibility timeout');
select is((select lease_holder from mdame.work_units where id = (select id from u where n = 3)), null, 'the task left over leases nothing');

update pgmq.q_stage_tasks set vt = now() + interval '1 minute' where msg_id = (select msg_id from m where n = 3);
select is((select count(*) from mdame.claim_stage_tasks('runner-b', 5, 30)), 0::bigint, 'a task not yet visible is not claimed');

select * from finish();
rollback;
