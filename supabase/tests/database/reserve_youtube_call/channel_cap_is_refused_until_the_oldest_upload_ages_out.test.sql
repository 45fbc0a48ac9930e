begin;
\ir ../_fixtures.psql
select plan(5);

update mdame.dimension_accounts set upload_cap_24h = 3 where id = tests.account_of('tech-explained');
select tests.past_uploads(tests.account_of('tech-explained'), 1, interval '20 hours');
select tests.past_uploads(tests.account_of('tech-explained'), 2, interval '2 hours');
-- An upload 25 hours ago is out of the window.
select tests.past_uploads(tests.account_of('tech-explained'), 1, interval '25 hours');

create temp table p as select * from tests.fresh_publication();
create temp table r as select * from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L, %L)',
  tests.account_of('tech-explained'), 'videos.insert', (select id from p)));
select is((select code from r), 'MDQ03', 'three uploads in the last 24 hours reach a cap of 3');
select is((select (detail->>'not_before')::timestamptz from r), now() - interval '20 hours' + interval '24 hours',
  'the account may upload again when the oldest upload of the window ages out');
select is((select (detail->>'uploads')::int from r), 3, 'the refusal counts the window''s uploads');
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L)', tests.account_of('tech-explained'), 'videos.list'),
  'the cap is on uploads only: other calls go on');

update mdame.dimension_accounts set upload_cap_24h = 4 where id = tests.account_of('tech-explained');
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p)),
  'a higher cap lets the upload through');

select * from finish();
rollback;
