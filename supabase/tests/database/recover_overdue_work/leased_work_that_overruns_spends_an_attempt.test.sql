begin;
\ir ../_fixtures.psql
select plan(6);

-- The unit's task is claimed (leased for an hour) and the work overruns the deadline the claim started.
delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u));
select count(*) from mdame.claim_stage_tasks('runner-a', 10, 3600);
update mdame.work_units set stage_deadline = now() - interval '1 second' where id = (select id from u);

select is(mdame.recover_overdue_work(), '{"requeued": 0, "failed": 0}'::jsonb, 'leased work that overran is not enqueued again');
select is((select stage_attempts from mdame.work_units where id = (select id from u)), 1, 'it spends an attempt');
select is((select stage_deadline from mdame.work_units where id = (select id from u)), now() + interval '900 seconds',
          'and its deadline starts again');
select is(tests.event_count((select id from u), 'recovered', 'script'), 1::bigint, 'the recovery is recorded');

-- Still leased and overrunning with its attempts used up: the unit fails.
update mdame.work_units set stage_deadline = now() - interval '1 second', stage_attempts = 3 where id = (select id from u);
select is((mdame.recover_overdue_work()->>'failed')::int, 1, 'leased work overrunning its last attempt fails its unit');
select alike((select error from mdame.work_units where id = (select id from u)), 'script: deadline passed after 3 attempt(s)', 'with the reason');

select * from finish();
rollback;
