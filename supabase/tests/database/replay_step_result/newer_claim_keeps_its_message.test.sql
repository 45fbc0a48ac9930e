begin;
\ir ../_fixtures.psql
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u)) as msg_id;
create temp table t as select message->>'step_token' as token from pgmq.q_stage_tasks where msg_id = (select msg_id from m);
select mdame.store_step_result((select token from t), '{"title": "Stored title"}');
create temp table first_claim as select * from mdame.claim_stage_tasks('runner-a', 1, 30);
-- runner-a stalls past its lease; runner-b claims the same task.
update pgmq.q_stage_tasks set vt = now() - interval '1 second';
create temp table second_claim as select * from mdame.claim_stage_tasks('runner-b', 1, 30);

select is((mdame.replay_step_result((select msg_id from m), (select token from t), (select lease_holder from first_claim)))->>'title',
          'Stored title', 'the stale holder still gets the stored result');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'but the message stays with its new holder');
select is((mdame.replay_step_result((select msg_id from m), (select token from t), (select lease_holder from second_claim)))->>'title',
          'Stored title', 'the current holder gets it too');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'and its call archives the message');

select * from finish();
rollback;
