begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table first as select * from mdame.record_script((select msg_id from m), (select id from u), 'step:t:1:r', '{"title": "First", "narration": "n"}');
create temp table second as select * from mdame.record_script((select msg_id from m), (select id from u), 'step:t:1:r', '{"title": "First", "narration": "n"}');

select is((select (stage, stage_deadline, script) from second), (select (stage, stage_deadline, script) from first),
          'the repeat returns the unit as the first call left it');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'safety', 'unit_id', (select id from u))), 1::bigint, 'one safety task');
select is(tests.event_count((select id from u), 'stage_entered', 'safety'), 1::bigint, 'the unit enters safety once');
select is((select count(*) from mdame.step_results where step_token = 'step:t:1:r'), 1::bigint, 'one stored step result');
select is((select count(*) from pgmq.a_stage_tasks where msg_id = (select msg_id from m)), 1::bigint, 'the script task is archived once');

select * from finish();
rollback;
