begin;
\ir ../_fixtures.psql
select plan(7);

-- A render job read three times (the render limit) whose worker died each time: its lease ran out,
-- and a restarted worker reads it again before any tick sees it.
create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u), 'run_id', (select run_id from u))) as msg_id;
update pgmq.q_render set read_ct = 3, vt = now() - interval '1 second' where msg_id = (select msg_id from m);

select is((select count(*) from mdame.read_worker_jobs('render', 30, 5)), 0::bigint, 'the fourth read hands nothing out');
select ok(tests.archived('render', (select msg_id from m)), 'the job leaves the queue');
select is((select read_ct from mdame.dead_letters where queue_name = 'render' and msg_id = (select msg_id from m)), 4,
          'it is dead-lettered at its fourth read');
select matches((select last_error from mdame.dead_letters where queue_name = 'render' and msg_id = (select msg_id from m)),
               '^read 4 times without a result \(limit 3\): the worker stopped before reporting each time$', 'saying why');
select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'its unit fails explicitly');
select matches((select error from mdame.work_units where id = (select id from u)), 'worker stopped before reporting', 'with the reason');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'failed', 'its run, with nothing left, closes');

select * from finish();
rollback;
