begin;
\ir ../_fixtures.psql
select plan(6);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
update pgmq.q_stage_tasks set read_ct = 3 where msg_id = (select msg_id from m);
select mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'model down', true);
create temp table dl as select id from mdame.dead_letters where msg_id = (select msg_id from m);

select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'failed', 'the dead letter closed the run as failed');
create temp table r as select mdame.retry_dead_letter((select id from dl)) as result;
select is((select stage from mdame.work_units where id = (select id from u)), 'script', 'the unit is back at its stage');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run is reopened');
select ok(tests.queue_has('stage_tasks', (select (result->>'msg_id')::bigint from r)), 'a fresh message is queued');
select isnt((select retried_at from mdame.dead_letters where id = (select id from dl)), null, 'the dead letter records its retry');
select throws_ok(format('select mdame.retry_dead_letter(%s)', (select id from dl)), 'MDS01', null, 'a second retry is refused');

select * from finish();
rollback;
