begin;
\ir ../_fixtures.psql
select plan(9);

delete from pgmq.q_stage_tasks;
-- An ingest task and a unit's script task, each read as often as their stage allows (3) by runners
-- that died before reporting.
create temp table r as select * from mdame.start_run('k-claim-limit', 'dev', 'manual', current_date, 'tech-explained');
create temp table ingest as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r);
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
update pgmq.q_stage_tasks set read_ct = 3;
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 10, 30);

select is((select count(*) from c), 0::bigint, 'a task past its read limit is not handed out');
select ok(tests.archived('stage_tasks', (select msg_id from ingest)) and tests.archived('stage_tasks', (select msg_id from m)),
          'both tasks are archived');
select is((select count(*) from mdame.dead_letters where msg_id in ((select msg_id from ingest), (select msg_id from m))), 2::bigint,
          'both are dead-lettered');
select is((select read_ct from mdame.dead_letters where msg_id = (select msg_id from m)), 4, 'with the read that found them past the limit');
select matches((select last_error from mdame.dead_letters where msg_id = (select msg_id from m)), '^read 4 times without a result \(limit 3\)',
               'and a reason that says so');
select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'the unit fails');
select is((select status from mdame.run_dimensions where run_id = (select run_id from r)), 'failed', 'the ingest task''s dimension fails');
select is((select status from mdame.pipeline_runs where id = (select run_id from r)), 'failed', 'and its run closes, its only dimension failed');

-- A task under its limit is handed out as before.
create temp table m2 as select tests.send_task('script', (select id from tests.unit_at_stage('script'))) as msg_id;
update pgmq.q_stage_tasks set read_ct = 2 where msg_id = (select msg_id from m2);
select is((select read_ct from mdame.claim_stage_tasks('runner-b', 10, 30)), 3, 'the last allowed read is claimed');

select * from finish();
rollback;
