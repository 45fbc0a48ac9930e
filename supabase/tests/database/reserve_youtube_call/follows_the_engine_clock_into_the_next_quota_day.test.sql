begin;
\ir ../_fixtures.psql
select plan(5);

-- One upload a day for the project: today's is taken.
update mdame.youtube_projects set upload_calls_per_day = 1 where oauth_client_id = 'default';
create temp table p1 as select * from tests.fresh_publication();
create temp table p2 as select * from tests.fresh_publication();
select mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p1));
create temp table r as select * from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L, %L)',
  tests.account_of('tech-explained'), 'videos.insert', (select id from p2)));
select is((select code from r), 'MDQ02', 'the day''s only upload call is taken');

-- 25 hours later on the engine's clock, the next Pacific quota day has begun.
select mdame.set_engine_clock(interval '25 hours');
create temp table e as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p2));
select is((select quota_day from e), mdame.youtube_quota_day(now() + interval '25 hours'), 'the call is charged to the engine''s quota day');
select is((select created_at from e), now() + interval '25 hours', 'and stamped with the engine''s time');
select ok((select (detail->>'not_before')::timestamptz from r) <= mdame.engine_now(), 'the refusal''s not_before has passed on the engine''s clock');

-- The channel's window is read on the same clock: the first upload, 25 hours back on it, has aged
-- out, so a cap of 2 still takes a third upload (on the real clock both would count and fill it).
update mdame.dimension_accounts set upload_cap_24h = 2 where id = tests.account_of('tech-explained');
update mdame.youtube_projects set upload_calls_per_day = 10 where oauth_client_id = 'default';
create temp table p3 as select * from tests.fresh_publication();
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p3)),
  'the channel''s 24-hour window counts uploads on the engine''s clock');

select * from finish();
rollback;
