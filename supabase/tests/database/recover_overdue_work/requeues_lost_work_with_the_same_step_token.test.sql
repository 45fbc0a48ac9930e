begin;
\ir ../_fixtures.psql
select plan(5);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u));
create temp table original as select message->>'step_token' as token from pgmq.q_stage_tasks;
-- The task is lost (purged) and the stage's deadline passes.
delete from pgmq.q_stage_tasks;
update mdame.work_units set stage_deadline = now() - interval '1 second' where id = (select id from u);

select is((mdame.recover_overdue_work()->>'requeued')::int, 1, 'the recovery pass re-enqueues the lost task');
select is((select message->>'step_token' from pgmq.q_stage_tasks), (select token from original), 'with the same step token');
select is((select stage_attempts from mdame.work_units where id = (select id from u)), 1, 'using up one attempt');
select ok((select stage_deadline > now() from mdame.work_units where id = (select id from u)), 'with a fresh deadline');
select is((mdame.recover_overdue_work()->>'requeued')::int, 0, 'a second pass finds nothing overdue');

select * from finish();
rollback;
