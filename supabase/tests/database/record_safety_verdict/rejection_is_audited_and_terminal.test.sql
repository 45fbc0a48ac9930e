begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select tests.send_task('safety', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:x', false, '["category:gambling"]', 'rules/1');

select is((select stage from r), 'rejected', 'a rejected script ends the unit as rejected');
select is((select verdict from mdame.safety_audit_logs where unit_id = (select id from u)), 'rejected', 'the rejection is written to safety_audit_logs');
select is((select reasons from mdame.safety_audit_logs where unit_id = (select id from u)), '["category:gambling"]'::jsonb, 'with its reasons');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'completed', 'the run closes once every unit is terminal');

select * from finish();
rollback;
