begin;
\ir ../_fixtures.psql
select plan(2);

select mdame.raise_alert('dead_letter', null, 'k:1', 'first');
select mdame.set_engine_clock(interval '1 minute');
select mdame.raise_alert('run_failed', null, 'k:2', 'second');
select is((select summary from mdame.list_alerts(10) limit 1), 'second', 'the newest alert comes first');
select is((select count(*)::int from mdame.list_alerts(1)), 1, 'the limit is kept');

select * from finish();
rollback;
