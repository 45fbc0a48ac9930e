begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.settings set value = 'prod' where key = 'env';
select throws_ok($$ select mdame.set_engine_clock(interval '1 day') $$, 'MDE01', null, 'a production database''s clock cannot be moved');
select is((select count(*)::int from mdame.settings where key = 'clock_offset'), 0, 'and nothing is recorded');
delete from mdame.settings where key = 'env';
select throws_ok($$ select mdame.set_engine_clock(interval '1 day') $$, 'MDE01', null, 'nor can one that records no environment');

select * from finish();
rollback;
