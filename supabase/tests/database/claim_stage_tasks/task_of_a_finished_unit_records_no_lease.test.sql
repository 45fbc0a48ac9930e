begin;
\ir ../_fixtures.psql
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('rejected');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table ingest as select mdame.enqueue_stage_task('ingest', (select run_id from u), null, 'tech-explained') as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 5, 30);

select is((select count(*) from c where msg_id = (select msg_id from m)), 1::bigint,
          'the task of a rejected unit is still handed out, so its completion call can archive it');
select is((select lease_holder from mdame.work_units where id = (select id from u)), null, 'the rejected unit takes no lease');
select is((select stage from mdame.work_units where id = (select id from u)), 'rejected', 'and stays rejected');
select is((select lease_holder from c where msg_id = (select msg_id from ingest)), 'runner-a/' || (select msg_id from ingest) || '/1',
          'a task without a unit (ingest) gets a lease of its own');

select * from finish();
rollback;
