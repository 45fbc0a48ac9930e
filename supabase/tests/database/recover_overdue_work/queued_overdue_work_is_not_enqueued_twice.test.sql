begin;
\ir ../_fixtures.psql
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u));
update mdame.work_units set stage_deadline = now() - interval '1 second' where id = (select id from u);

select is((mdame.recover_overdue_work()->>'requeued')::int, 0, 'overdue work still in the queue is not re-enqueued');
select is(tests.queued_count('stage_tasks', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'one task for the unit');
select is((select stage_attempts from mdame.work_units where id = (select id from u)), 1, 'the wait uses up an attempt');
select ok((select stage_deadline > now() from mdame.work_units where id = (select id from u)), 'and the deadline starts again');

select * from finish();
rollback;
