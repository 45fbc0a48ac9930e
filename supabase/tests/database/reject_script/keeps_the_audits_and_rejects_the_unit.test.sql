begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('script');
update mdame.work_units set script = null where id = (select id from u);
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table r as select * from mdame.reject_script((select msg_id from m), (select id from u), 'step:t:1:rs', 'no hook reached 0.72',
  '[{"round": 0, "candidate": 1, "score": 0.2, "reasons": ["flat"]}, {"round": 0, "candidate": 2, "score": 0.3, "reasons": ["slow"]}]');

select is((select (stage, error) from r), ('rejected'::text, 'no hook reached 0.72'::text), 'the unit ends as rejected with the reason');
select is((select jsonb_array_length(script->'hook_audits') from mdame.work_units where id = (select id from u)), 2, 'every audit is kept on the unit');
select is(mdame.get_step_result('step:t:1:rs')->'hook_audits'->1->>'score', '0.3', 'and under the step token');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the task is archived');
select throws_ok($$ select mdame.reject_script(1, gen_random_uuid(), 'step:x', 'r', '{}'::jsonb) $$, 'MDS01', null, 'audits that are not a list are refused');

select * from finish();
rollback;
