begin;
\ir ../_fixtures.psql
select plan(5);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 1, 30);

select is(mdame.extend_stage_lease((select msg_id from m), (select lease_holder from c), 300), true, 'the current holder extends its claim');
select ok((select vt > now() + interval '299 seconds' from pgmq.q_stage_tasks where msg_id = (select msg_id from m)),
          'the task stays hidden for the new timeout');
select ok((select lease_expires_at > now() + interval '299 seconds' from mdame.work_units where id = (select id from u)),
          'the unit records the new expiry');
select is((select lease_holder from mdame.work_units where id = (select id from u)), (select lease_holder from c), 'under the same holder');

create temp table ingest as select mdame.enqueue_stage_task('ingest', (select run_id from u), null, 'tech-explained') as msg_id;
create temp table ci as select * from mdame.claim_stage_tasks('runner-a', 1, 30);
select is(mdame.extend_stage_lease((select msg_id from ingest), (select lease_holder from ci), 300), true,
          'a task without a unit is extended by its holder too');

select * from finish();
rollback;
