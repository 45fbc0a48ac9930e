begin;
\ir ../_fixtures.psql
select plan(7);

-- tech-explained publishes to two channels; the second one's project is spent.
insert into mdame.dimension_accounts (dimension_id, platform, channel_handle) values ('tech-explained', 'youtube', '@second');
-- Created in the same transaction as the fixture's account: name each by its channel, not by age.
create temp table first_account as select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo';
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner', 10, 30) where msg_id = (select msg_id from m);
select mdame.record_publication((select msg_id from m), (mdame.begin_publication((select id from u), (select id from first_account))).id, 'video-1',
  (select lease_holder from c));
select mdame.defer_publication((mdame.begin_publication((select id from u), (select id from mdame.dimension_accounts where channel_handle = '@second'))).id,
  'quota_spent', now() + interval '5 hours');

create temp table r as select * from mdame.defer_unit_publish((select msg_id from m), (select id from u), 'step:test', (select lease_holder from c));
select is((select stage from r), 'deferred', 'the unit waits at stage deferred');
select is((select stage_deadline from r), null, 'with no deadline: recovery leaves it alone');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the publish task is archived');
select is((select count(*) from mdame.step_results where step_token = 'step:test'), 0::bigint, 'no step result is stored: the drain sends the same step again');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'completed', 'the run closes, completed (nothing failed)');
select is((select (detail->>'deferred')::int from mdame.events where run_id = (select run_id from u) and kind = 'run_completed'), 1,
  'the run''s closing event counts the deferred unit');
select is((select stage from mdame.defer_unit_publish((select msg_id from m), (select id from u), 'step:test', (select lease_holder from c))), 'deferred',
  'a repeat returns the unit unchanged');

select * from finish();
rollback;
