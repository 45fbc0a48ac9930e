begin;
\ir ../_fixtures.psql
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select mdame.enqueue_stage_task('safety', (select run_id from u), (select id from u)) as msg_id;
create temp table t as select message->>'step_token' as token from pgmq.q_stage_tasks where msg_id = (select msg_id from m);
select mdame.store_step_result((select token from t), '{"allowed": true, "reasons": []}');
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 1, 30);
create temp table first_call as select mdame.replay_step_result((select msg_id from m), (select token from t), (select lease_holder from c)) as result;
create temp table second_call as select mdame.replay_step_result((select msg_id from m), (select token from t), (select lease_holder from c)) as result;

select is((select result from second_call), (select result from first_call), 'a repeated call returns the same stored result');
select is((select result from second_call), '{"allowed": true, "reasons": []}'::jsonb, 'which is the one stored');
select is((select count(*) from pgmq.a_stage_tasks where msg_id = (select msg_id from m)), 1::bigint, 'the task is archived once');
select is((select count(*) from mdame.events where unit_id = (select id from u) and kind = 'step_replayed'), 1::bigint,
          'the repeat changes nothing');

select * from finish();
rollback;
