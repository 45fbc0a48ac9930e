begin;
\ir ../_fixtures.psql
select plan(9);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table c as select '{"compared": 3, "threshold": 0.5, "verdict": "too_similar",
  "closest": {"unit_id": "00000000-0000-0000-0000-000000000001", "title": "Old video",
              "figures": {"title": 0.4, "hook": 0.9, "script": 0.8, "scenes": 0.2, "combined": 0.755}}}'::jsonb as check_;

-- First time: back to the script stage, the next script task carrying regeneration 1.
create temp table m1 as select tests.send_task('plan', (select id from u)) as msg_id;
create temp table r1 as select * from mdame.record_too_similar((select msg_id from m1), (select id from u), 'step:t:1:ts1', (select check_ from c), 1);
select is((select stage from r1), 'script', 'a too-similar script goes back to the script stage');
select ok(tests.archived('stage_tasks', (select msg_id from m1)), 'the plan task is archived');
select is((select (message->>'regeneration')::integer from pgmq.q_stage_tasks where message->>'unit_id' = (select id::text from u) and message->>'stage' = 'script'),
  1, 'the new script task carries its regeneration, so its step token is new');
select is((select similarity->'checks'->0->>'action' from mdame.work_units where id = (select id from u)), 'regenerated', 'the check is kept on the unit with its action');
select is(mdame.get_step_result('step:t:1:ts1')->>'action', 'regenerated', 'and under the step token');

-- Second time, with max_regenerations 1 spent: rejected as too_similar with the figures.
update mdame.work_units set stage = 'plan' where id = (select id from u);
create temp table m2 as select tests.send_task('plan', (select id from u)) as msg_id;
create temp table r2 as select * from mdame.record_too_similar((select msg_id from m2), (select id from u), 'step:t:1:ts2', (select check_ from c), 1);
select is((select stage from r2), 'rejected', 'past max_regenerations the unit is rejected');
select is((select error from r2), 'too_similar: 0.755 to "Old video" (script 0.8, hook 0.9, title 0.4, scenes 0.2) after 1 regeneration(s)',
  'with the reason too_similar and the figures');
select is((select count(*)::integer from mdame.events where unit_id = (select id from u) and kind = 'similarity_checked'), 2, 'each check is logged for the weekly report');
select is((select count(*)::integer from pgmq.q_stage_tasks where message->>'unit_id' = (select id::text from u) and message->>'stage' = 'script'), 1,
  'no further script task is queued');

select * from finish();
rollback;
