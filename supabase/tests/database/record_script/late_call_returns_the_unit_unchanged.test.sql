begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_script((select msg_id from m), (select id from u), 'step:t:1:late', '{"title": "Late"}');

select is((select stage from r), 'plan', 'the stage is unchanged');
select is((select script->>'title' from mdame.work_units where id = (select id from u)), 'Test title', 'the script is not overwritten');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the stale task is archived anyway');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'safety', 'unit_id', (select id from u))), 0::bigint, 'nothing is enqueued');

select * from finish();
rollback;
