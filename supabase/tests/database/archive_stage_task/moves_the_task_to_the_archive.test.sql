begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table original as select message from pgmq.q_stage_tasks where msg_id = (select msg_id from m);

select is(mdame.archive_stage_task((select msg_id from m)), true, 'a queued task is archived');
select ok(not tests.queue_has('stage_tasks', (select msg_id from m)), 'it leaves the queue');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'and is kept in the archive');
select is((select message from pgmq.a_stage_tasks where msg_id = (select msg_id from m)), (select message from original), 'with its message intact');

select * from finish();
rollback;
