begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('script');
create temp table other as select * from tests.unit_at_stage('script');
create temp table m as select
  mdame.enqueue_stage_task('ingest', (select run_id from u), null, 'tech-explained') as ingest_a,
  mdame.enqueue_stage_task('ingest', (select run_id from u), null, 'sains-singkat') as ingest_b,
  mdame.enqueue_stage_task('ingest', (select run_id from other), null, 'tech-explained') as other_ingest,
  tests.send_task('script', (select id from u)) as script_task;
select mdame.cancel_queued_ingest((select run_id from u));

select ok(tests.archived('stage_tasks', (select ingest_a from m)) and tests.archived('stage_tasks', (select ingest_b from m)),
          'every ingest task of the run is archived');
select ok(tests.queue_has('stage_tasks', (select other_ingest from m)), 'another run''s ingest task stays queued');
select ok(tests.queue_has('stage_tasks', (select script_task from m)), 'the run''s other stage tasks stay queued');
select is((select count(*) from pgmq.a_stage_tasks), 2::bigint, 'nothing else is archived');

select * from finish();
rollback;
