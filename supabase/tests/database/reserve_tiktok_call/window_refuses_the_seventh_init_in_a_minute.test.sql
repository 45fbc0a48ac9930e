begin;
\ir ../_fixtures.psql
select plan(7);

create temp table a as select (mdame.connect_account('tech-explained', 'tiktok', '@tok-creator', null, 'tiktok-client-key')).id;
select lives_ok(format('select mdame.reserve_tiktok_call(%L, %L) from generate_series(1, 6)', (select id from a), 'video.init'),
  'six video.init calls fit in a minute');
create temp table r as select * from tests.refusal(format('select mdame.reserve_tiktok_call(%L, %L)', (select id from a), 'video.init'));
select is((select code from r), 'MDQ04', 'the seventh is refused');
select is((select (detail->>'not_before')::timestamptz from r), now() + interval '60 seconds',
  'until the oldest call of the window is a minute old');
select lives_ok(format('select mdame.reserve_tiktok_call(%L, %L)', (select id from a), 'status.fetch'),
  'each call kind has its own window');

-- A minute later on the engine's clock the window has room again.
select mdame.set_engine_clock(interval '61 seconds');
select lives_ok(format('select mdame.reserve_tiktok_call(%L, %L)', (select id from a), 'video.init'), 'a minute later the account may init again');
select is((select count(*)::int from mdame.tiktok_calls where account_id = (select id from a) and call_kind = 'video.init'), 7,
  'every call is counted, at the engine''s time');

-- Another account's window is its own.
create temp table b as select (mdame.connect_account('sains-singkat', 'tiktok', '@other-creator', null, 'tiktok-client-key')).id;
select lives_ok(format('select mdame.reserve_tiktok_call(%L, %L) from generate_series(1, 6)', (select id from b), 'video.init'),
  'another account has six of its own');

select * from finish();
rollback;
