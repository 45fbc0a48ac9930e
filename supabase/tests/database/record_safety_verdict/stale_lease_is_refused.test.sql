begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select tests.send_task('safety', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));

create temp table late as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:a', false,
                                                                    '["category:gambling"]', 'rules/1', (select stale_holder from h));
select is((select stage from late), 'safety', 'the stale holder''s verdict is refused');
select is((select count(*) from mdame.safety_audit_logs where unit_id = (select id from u)), 0::bigint, 'nothing is audited');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays with its new holder');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run is not closed');

create temp table fresh as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:b', true,
                                                                     '[]', 'rules/1', (select current_holder from h));
select is((select stage from fresh), 'plan', 'the current holder''s verdict is recorded');
select is((select verdict from mdame.safety_audit_logs where unit_id = (select id from u)), 'allowed', 'and only its verdict is audited');

select * from finish();
rollback;
