begin;
\ir ../_fixtures.psql
select plan(3);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 1, 30);

select is(mdame.extend_stage_lease((select msg_id from m), (select lease_holder from c), 60), true, 'the first heartbeat extends the claim');
select is(mdame.extend_stage_lease((select msg_id from m), (select lease_holder from c), 60), true, 'so does the next one');
select ok((select vt between now() + interval '59 seconds' and now() + interval '61 seconds' from pgmq.q_stage_tasks where msg_id = (select msg_id from m)),
          'two heartbeats of 60 s leave the task hidden for 60 s from now, not 120');

select * from finish();
rollback;
