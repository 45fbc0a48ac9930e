begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('media');
create temp table other as select * from tests.unit_at_stage('script');
create temp table m as select
  tests.send_task('voice', (select id from u)) as stage_msg,
  (select pgmq.send('visual_generation', jsonb_build_object('unit_id', (select id from u)))) as visual_msg,
  (select pgmq.send('render', jsonb_build_object('unit_id', (select id from u)))) as render_msg,
  tests.send_task('script', (select id from other)) as other_msg;

select is(mdame.cancel_queued_work((select id from u)), 3, 'the unit''s three queued messages are cancelled');
select ok(tests.archived('stage_tasks', (select stage_msg from m)), 'its stage task is archived');
select ok(tests.archived('visual_generation', (select visual_msg from m)), 'its visual job is archived');
select ok(tests.archived('render', (select render_msg from m)), 'its render job is archived');
select ok(tests.queue_has('stage_tasks', (select other_msg from m)), 'another unit''s task stays queued');

select * from finish();
rollback;
