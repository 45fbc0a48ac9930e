begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;

-- First read: a retriable failure under the limit is retried later.
select pgmq.read('stage_tasks', 0, 10);
select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'timeout', true), 'retry',
          'a retriable failure under the attempt limit is retried');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the message stays in the queue');

-- Read up to the limit, then the next failure dead-letters.
update pgmq.q_stage_tasks set read_ct = 3 where msg_id = (select msg_id from m);
select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'timeout', true), 'dead_letter',
          'at the attempt limit the message is dead-lettered');
select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'and the unit fails explicitly');

select * from finish();
rollback;
