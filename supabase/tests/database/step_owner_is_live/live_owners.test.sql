begin;
\ir ../_fixtures.psql
select plan(4);

create temporary table t_unit as select * from tests.unit_at_stage('script');
select ok(mdame.step_owner_is_live('step:' || (select id from t_unit) || ':0:abc'), 'a unit at work owns live steps');
update mdame.work_units set stage = 'failed' where id = (select id from t_unit);
select ok(not mdame.step_owner_is_live('step:' || (select id from t_unit) || ':0:abc'), 'a failed unit does not');
select ok(not mdame.step_owner_is_live('step:test'), 'an owner that is no id is not live');
select ok(mdame.step_owner_is_live('step:' || (select run_id from t_unit) || ':0:abc'), 'a running run owns live steps');

select * from finish();
rollback;
