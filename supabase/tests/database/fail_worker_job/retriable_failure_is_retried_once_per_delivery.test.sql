begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
select pgmq.read('render', 30, 1);

select is((select outcome from mdame.fail_worker_job('render', (select msg_id from m), (select id from u), 'ffmpeg crashed', true, 'wh-f1')), 'retry',
          'a retriable failure with attempts left is retried');
select is((select outcome from mdame.fail_worker_job('render', (select msg_id from m), (select id from u), 'ffmpeg crashed', true, 'wh-f1')), 'duplicate',
          'the same delivery again changes nothing');
select is((select outcome from mdame.fail_worker_job('render', (select msg_id from m), (select id from u), 'input missing', false, 'wh-f2')), 'dead_letter',
          'a final failure dead-letters at once');
select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'and fails the unit');

select * from finish();
rollback;
