begin;
\ir ../_fixtures.psql
select plan(5);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u)) as msg_id;
create temp table t as select message->>'step_token' as token from pgmq.q_stage_tasks where msg_id = (select msg_id from m);
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 1, 30);
create temp table before as select read_ct, vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m);

select is(mdame.replay_step_result((select msg_id from m), (select token from t), (select lease_holder from c)), null,
          'a step with no stored result returns null');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays queued');
select is((select (read_ct, vt)::text from pgmq.q_stage_tasks where msg_id = (select msg_id from m)),
          (select (read_ct, vt)::text from before), 'with its claim untouched');
select is((select (stage, lease_holder) from mdame.work_units where id = (select id from u))::text,
          ('script', (select lease_holder from c))::text, 'the unit is untouched');
select is((select count(*) from mdame.step_results where step_token = (select token from t)), 0::bigint, 'nothing is stored');

select * from finish();
rollback;
