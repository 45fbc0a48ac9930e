begin;
\ir ../_fixtures.psql
select plan(4);

select is(mdame.engine_now(), now(), 'without an offset the engine''s clock is now()');
insert into mdame.settings (key, value) values ('clock_offset', '3 days 2 hours');
select is(mdame.engine_now(), now() + interval '3 days 2 hours', 'a dev database''s offset moves it');
update mdame.settings set value = '-1 day' where key = 'clock_offset';
select is(mdame.engine_now(), now() - interval '1 day', 'back as well as forward');
update mdame.settings set value = 'prod' where key = 'env';
select is(mdame.engine_now(), now(), 'a production database ignores an offset left in its settings');

select * from finish();
rollback;
