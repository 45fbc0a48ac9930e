begin;
\ir ../_fixtures.psql
select plan(7);

create temp table t as select (tests.unit_at_stage('script')).id as unit_id;
select tests.send_task('script', (select unit_id from t));
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 1, 30);

select is(mdame.defer_stage_task_for_budget((select msg_id from c), 'runner-b/' || (select msg_id from c) || '/1', 600, 'budget'), 'stale',
          'a claim that is not the current one changes nothing');
select is(mdame.defer_stage_task_for_budget((select msg_id from c), (select lease_holder from c), 600, 'daily budget of 1 USD reached'), 'deferred',
          'the current claim defers the task');
select is((select read_ct from pgmq.q_stage_tasks where msg_id = (select msg_id from c)), 0, 'the read is given back: no attempt spent');
select ok((select vt > clock_timestamp() + interval '590 seconds' from pgmq.q_stage_tasks where msg_id = (select msg_id from c)),
          'the task is invisible for the deferral');
select is((select row(stage, lease_holder)::text from mdame.work_units where id = (select unit_id from t)), '(script,)',
          'the unit stays at its stage, its lease cleared');
select is(mdame.recover_overdue_work(), '{"failed": 0, "requeued": 0}'::jsonb, 'recovery leaves the waiting unit alone');
select throws_ok($$select mdame.defer_stage_task_for_budget(1, 'x', 0, 'r')$$, '22023', null, 'a deferral of no time is refused');

select * from finish();
rollback;
