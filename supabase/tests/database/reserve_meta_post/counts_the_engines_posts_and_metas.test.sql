begin;
\ir ../_fixtures.psql
select plan(8);

-- An Instagram account whose limit is 3 posts a day; each post is a publication of its own unit.
create temp table a as select (mdame.connect_account('tech-explained', 'instagram', '@sky_facts', '17841400000000001', '100000000000001')).id;
create temp table pubs as
  select (mdame.begin_publication((tests.unit_ready_to_publish()).id, (select id from a))).id from generate_series(1, 4);
create temp table ordered as select id, row_number() over () as n from pubs;

select lives_ok(format('select mdame.reserve_meta_post(%L, id, 3, 0) from ordered where n <= 2', (select id from a)),
  'two posts fit in a limit of 3 that Meta reads as unused');
select is((select (quota_total, quota_usage) from mdame.meta_publishing_limits where account_id = (select id from a)), (3, 0),
  'the limit read is recorded');

-- Meta counts one post made elsewhere: with the engine's two, the window is full.
create temp table r as select * from tests.refusal(format('select mdame.reserve_meta_post(%L, %L, 3, 3)', (select id from a), (select id from ordered where n = 3)));
select is((select code from r), 'MDQ03', 'a window Meta reads as full is refused');
select is((select (detail->>'not_before')::timestamptz from r), now() + interval '24 hours',
  'until the engine''s oldest post ages out');

-- Meta reads two (its count lags), but the engine knows of two of its own and one more is allowed.
select lives_ok(format('select mdame.reserve_meta_post(%L, %L, 3, 2)', (select id from a), (select id from ordered where n = 3)),
  'the larger of the two counts decides: two of three, room for one');
create temp table r2 as select * from tests.refusal(format('select mdame.reserve_meta_post(%L, %L, 3, 0)', (select id from a), (select id from ordered where n = 4)));
select is((select code from r2), 'MDQ03', 'the engine''s own three posts fill the window even when Meta reads none');

-- A day later on the engine's clock the window has room again.
select mdame.set_engine_clock(interval '24 hours 1 second');
select lives_ok(format('select mdame.reserve_meta_post(%L, %L, 3, 0)', (select id from a), (select id from ordered where n = 4)),
  'a day later the account may post again');

-- An account Meta allows no post at all waits, and is read again an hour later.
create temp table r3 as select * from tests.refusal(format('select mdame.reserve_meta_post(%L, %L, 0, 0)', (select id from a), (select id from ordered where n = 4)));
select is((select (detail->>'not_before')::timestamptz from r3), now() + interval '24 hours 1 second' + interval '1 hour',
  'a limit of 0 is full: the limit is read again in an hour');

select * from finish();
rollback;
