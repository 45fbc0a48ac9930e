begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
select pgmq.read('render', 30, 1);

select results_eq(
  $$ select outcome, run_id, dimension_id from mdame.fail_worker_job('render', (select msg_id from m), (select id from u), 'ffmpeg crashed', true, 'wh-log-1') $$,
  $$ select 'retry'::text, run_id, dimension_id from mdame.work_units where id = (select id from u) $$,
  'the outcome comes with the unit''s run and dimension, the fields the callback logs'
);
select results_eq(
  $$ select outcome, run_id, dimension_id from mdame.fail_worker_job('render', (select msg_id from m), (select id from u), 'ffmpeg crashed', true, 'wh-log-1') $$,
  $$ select 'duplicate'::text, run_id, dimension_id from mdame.work_units where id = (select id from u) $$,
  'so does a replayed delivery, which changes nothing'
);

select * from finish();
rollback;
