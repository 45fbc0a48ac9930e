begin;
\ir ../_fixtures.psql
select plan(6);

-- The ledger knows two uploads in the window; YouTube counts more (uploads from the web).
select tests.past_uploads(tests.account_of('tech-explained'), 2, interval '3 hours');
create temp table p as select * from tests.fresh_publication();
create temp table e as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p));
create temp table t as select mdame.record_youtube_refusal((select id from e), 'uploadLimitExceeded') as not_before;

select is((select not_before from t), now() - interval '3 hours' + interval '24 hours', 'the account may upload again when its oldest known upload ages out');
select is((select upload_cap_24h from mdame.dimension_accounts where id = tests.account_of('tech-explained')), 2,
  'the cap is lowered to the uploads the ledger counts in the window');
select is((select code from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p)))),
  'MDQ03', 'the next upload is refused by the ledger itself');

-- A channel whose uploads all came from elsewhere: nothing in the ledger.
create temp table p2 as select * from tests.fresh_publication('sains-singkat');
create temp table e2 as select * from mdame.reserve_youtube_call(tests.account_of('sains-singkat'), 'videos.insert', (select id from p2));
create temp table t2 as select mdame.record_youtube_refusal((select id from e2), 'uploadLimitExceeded') as not_before;
select is((select not_before from t2), now() + interval '24 hours', 'without a known upload the channel waits 24 hours');
select is((select row(upload_cap_24h, upload_cap_full_until)::text from mdame.dimension_accounts where id = tests.account_of('sains-singkat')),
  row(1, now() + interval '24 hours')::text, 'its cap goes to 1 and it is full until then');
select is((select (detail->>'not_before')::timestamptz from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L, %L)',
            tests.account_of('sains-singkat'), 'videos.insert', (select id from p2)))),
  now() + interval '24 hours', 'the ledger refuses with that time');

select * from finish();
rollback;
