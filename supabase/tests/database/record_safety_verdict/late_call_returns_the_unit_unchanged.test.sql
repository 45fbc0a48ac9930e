begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('safety', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:late', false, '["late"]', 'rules/1');

select is((select stage from r), 'plan', 'a late verdict leaves the unit at plan');
select is((select count(*) from mdame.safety_audit_logs where unit_id = (select id from u)), 0::bigint, 'nothing is audited');
select is(mdame.get_step_result('step:t:2:late'), null, 'no step result is stored');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the late task is archived');
select is(tests.queued_count('stage_tasks', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'nothing is enqueued');

select * from finish();
rollback;
