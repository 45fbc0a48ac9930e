begin;
\ir ../_fixtures.psql
select plan(3);

-- The schedule runs a pass every ten minutes: one with nothing to do leaves no event behind.
delete from mdame.scene_cache;
delete from mdame.events;
select is((select sum(deleted)::int from mdame.housekeeping(false)), 0, 'nothing is due');
select is((select count(*)::int from mdame.events where kind = 'housekeeping_pass'), 0, 'so no pass is logged');

insert into mdame.llm_cache (cache_key, model, response, created_at) values (repeat('b', 64), 'm', '{}', mdame.engine_now() - interval '400 days');
select count(*) from mdame.housekeeping(false);
select is((select count(*)::int from mdame.events where kind = 'housekeeping_pass'), 1, 'a pass that deleted something is');

select * from finish();
rollback;
