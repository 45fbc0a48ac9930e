begin;
\ir ../_fixtures.psql
select plan(5);

-- The fixture's dimension is already ingested, with one unit.
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select mdame.enqueue_stage_task('ingest', (select run_id from u), null, 'tech-explained') as msg_id;
create temp table rd as select * from mdame.record_topics((select msg_id from m), (select run_id from u), 'tech-explained', 'step:t:0:late',
  '[{"unit_key": "late-1", "fingerprint": "late-f1", "title": "Late"}]', '[{"title": "Late casino", "reasons": []}]');

select is((select status from rd), 'ingested', 'the dimension is returned as it was');
select is((select count(*) from mdame.work_units where run_id = (select run_id from u)), 1::bigint, 'no unit is created');
select is((select count(*) from mdame.safety_audit_logs where run_id = (select run_id from u)), 0::bigint, 'no rejection is audited');
select is(mdame.get_step_result('step:t:0:late'), null, 'no step result is stored');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the late ingest task is archived');

select * from finish();
rollback;
