begin;
\ir ../_fixtures.psql
select plan(3);

delete from mdame.settings where key like 'housekeeping.%';
select is((select value from mdame.housekeeping_settings() where name = 'scene_cache_ttl_days'), 30, 'the scene cache keeps 30 days by default');
select is((select count(*)::int from mdame.housekeeping_settings()), 9, 'nine settings');
insert into mdame.settings (key, value) values ('housekeeping.events_days', '45');
select is((select value from mdame.housekeeping_settings() where name = 'events_days'), 45, 'a stored value wins over the default');

select * from finish();
rollback;
