begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u), 'run_id', (select run_id from u))) as msg_id;
update pgmq.q_render set read_ct = 3 where msg_id = (select msg_id from m);

select is((select outcome from mdame.fail_worker_job('render', (select msg_id from m), (select id from u), 'ffmpeg crashed', true, 'wh-last')), 'dead_letter',
          'a retriable failure on the last allowed read is dead-lettered');
select is((select (read_ct, last_error) from mdame.dead_letters where queue_name = 'render' and msg_id = (select msg_id from m)),
          (3, 'ffmpeg crashed'::text), 'with its read count and last error');
select ok(tests.archived('render', (select msg_id from m)), 'the job is archived');
select is((select (stage, error) from mdame.work_units where id = (select id from u)), ('failed'::text, 'render: ffmpeg crashed'::text),
          'the unit fails with the reason');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'failed', 'and its run, with nothing else open, closes as failed');

select * from finish();
rollback;
