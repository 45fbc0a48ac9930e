begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
create temp table r as select * from mdame.reject_unsafe_output((select msg_id from m), (select id from u), 'plan', 'step:t:3:late', 'scene_plan',
  'x', '{"category": "other", "reasons": ["late"], "classifier": "prompt-firewall/2"}');

select is((select stage from r), 'safety', 'a unit not at the named stage is left alone');
select is((select count(*) from mdame.safety_audit_logs where unit_id = (select id from u)), 0::bigint, 'nothing is audited');
select throws_ok($$ select mdame.reject_unsafe_output(1, (select id from u), 'voice', 'step:x', 'script', 'x', '{}') $$, 'MDS01', null,
                 'a stage without model output is refused by name');

select * from finish();
rollback;
