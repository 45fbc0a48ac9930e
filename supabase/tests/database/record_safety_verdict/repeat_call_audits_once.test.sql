begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select tests.send_task('safety', (select id from u)) as msg_id;
create temp table first as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:r', true, '[]', 'rules/1');
create temp table second as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:r', true, '[]', 'rules/1');

select is((select (stage, stage_deadline) from second), (select (stage, stage_deadline) from first), 'the repeat returns the unit as the first call left it');
select is((select count(*) from mdame.safety_audit_logs where unit_id = (select id from u)), 1::bigint, 'one audit row');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'plan', 'unit_id', (select id from u))), 1::bigint, 'one plan task');
select is(tests.event_count((select id from u), 'stage_entered', 'plan'), 1::bigint, 'the unit enters plan once');

select * from finish();
rollback;
