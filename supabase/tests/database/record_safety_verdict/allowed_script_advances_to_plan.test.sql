begin;
\ir ../_fixtures.psql
select plan(6);

create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select tests.send_task('safety', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:ok', true, '[]', 'rules/1');

select is((select stage from r), 'plan', 'an allowed script moves the unit to plan');
select is((select (verdict, subject, subject_text) from mdame.safety_audit_logs where unit_id = (select id from u)),
          ('allowed'::text, 'script'::text, 'words here'::text), 'the allowed verdict is audited against the narration');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'plan', 'unit_id', (select id from u))), 1::bigint, 'one plan task is enqueued');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the safety task is archived');
select is(mdame.get_step_result('step:t:2:ok'), '{"allowed": true, "reasons": []}'::jsonb, 'the verdict is stored under its step token');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run goes on');

select * from finish();
rollback;
