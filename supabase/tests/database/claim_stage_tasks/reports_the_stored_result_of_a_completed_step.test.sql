begin;
\ir ../_fixtures.psql
select plan(3);

delete from pgmq.q_stage_tasks;
create temp table done_unit as select * from tests.unit_at_stage('safety');
create temp table new_unit as select * from tests.unit_at_stage('script');
-- tests.send_task uses the token 'step:test'; the done unit's task carries one whose step completed.
select pgmq.send('stage_tasks', jsonb_build_object('stage', 'script', 'run_id', run_id, 'unit_id', id, 'step_token', 'step:done:1:abc'))
  from done_unit;
select mdame.store_step_result('step:done:1:abc', '{"title": "Stored"}');
select tests.send_task('script', (select id from new_unit));
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 10, 30);

select is((select count(*) from c), 2::bigint, 'both tasks are claimed: the claim hands a completed step to the runner to replay');
select is((select completed_result from c where message->>'unit_id' = (select id::text from done_unit)), '{"title": "Stored"}'::jsonb,
          'with the stored result of its step token');
select is((select completed_result from c where message->>'unit_id' = (select id::text from new_unit)), null::jsonb,
          'a step that has not completed has none');

select * from finish();
rollback;
