begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('media');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_too_similar((select msg_id from m), (select id from u), 'step:t:1:late',
  '{"compared": 1, "threshold": 0.5, "verdict": "too_similar", "closest": {"unit_id": "00000000-0000-0000-0000-000000000001", "title": "x",
    "figures": {"title": 1, "hook": 1, "script": 1, "scenes": 1, "combined": 1}}}', 2);

select is((select stage from r), 'media', 'a unit past the plan stage is returned unchanged');
select is((select similarity from mdame.work_units where id = (select id from u)), null, 'and no check is recorded');
select is(mdame.get_step_result('step:t:1:late'), null, 'nor a step result');

select * from finish();
rollback;
