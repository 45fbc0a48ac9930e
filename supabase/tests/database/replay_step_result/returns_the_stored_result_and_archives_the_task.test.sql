begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
-- The script step completed earlier: the unit is at safety and the result is stored under the token.
create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u)) as msg_id;
create temp table t as select message->>'step_token' as token from pgmq.q_stage_tasks where msg_id = (select msg_id from m);
select mdame.store_step_result((select token from t), '{"title": "Stored title", "narration": "stored words"}');
-- The same step arrives again and is claimed.
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 1, 30);
create temp table r as select mdame.replay_step_result((select msg_id from m), (select token from t), (select lease_holder from c)) as result;

select is((select result->>'title' from r), 'Stored title', 'the stored result is returned');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the task is archived');
select ok(not tests.queue_has('stage_tasks', (select msg_id from m)), 'and no longer queued');
select is((select stage from mdame.work_units where id = (select id from u)), 'safety', 'the unit stays where it was');
select is((select count(*) from pgmq.q_stage_tasks), 0::bigint, 'nothing is enqueued');
select is((select count(*) from mdame.events where unit_id = (select id from u) and kind = 'step_replayed'
             and detail->>'msg_id' = (select msg_id from m)::text), 1::bigint, 'the replay is recorded');

select * from finish();
rollback;
