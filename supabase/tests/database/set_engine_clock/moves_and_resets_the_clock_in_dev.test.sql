begin;
\ir ../_fixtures.psql
select plan(5);

select is(mdame.set_engine_clock(interval '2 days'), now() + interval '2 days', 'the clock moves and the new time is returned');
select is((select value::interval from mdame.settings where key = 'clock_offset'), interval '2 days', 'the offset is recorded');
select is(mdame.set_engine_clock(interval '5 days'), now() + interval '5 days', 'a second move replaces the offset, it does not add to it');
select is(mdame.set_engine_clock(null), now(), 'null puts the clock back on now()');
select is((select count(*)::int from mdame.settings where key = 'clock_offset'), 0, 'and leaves no offset behind');

select * from finish();
rollback;
