begin;
\ir ../_fixtures.psql
select plan(6);

-- The ledger counts one upload of 100; YouTube says the project's quota is spent (another tool
-- used it, or YouTube counts differently).
create temp table p1 as select * from tests.fresh_publication();
create temp table p2 as select * from tests.fresh_publication('sains-singkat');
create temp table e as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p1));
create temp table t as select mdame.record_youtube_refusal((select id from e), 'quotaExceeded') as not_before;

select is((select not_before from t), mdame.youtube_quota_resets_at(mdame.youtube_quota_day(now())), 'the account may try again at the next Pacific midnight');
select is((select status from mdame.quota_ledger where id = (select id from e)), 'released', 'the refused call is released (YouTube did not count it)');
select is((select sum(cost)::int from mdame.quota_ledger where oauth_client_id = 'default' and bucket = 'uploads' and status <> 'released'
            and quota_day = mdame.youtube_quota_day(now())), 100, 'a correction fills the project''s upload bucket for the day');
select is((select code from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('sains-singkat'), 'videos.insert', (select id from p2)))),
  'MDQ02', 'every channel of the project now waits');
select is((select count(*) from mdame.events where kind = 'youtube_refusal' and detail->>'reason' = 'quotaExceeded'), 1::bigint, 'an event records the refusal');
select throws_ok(format('select mdame.record_youtube_refusal(%L, %L)', (select id from e), 'rateLimitExceeded'), '22023', null,
  'a refusal the ledger does not take over is refused');

select * from finish();
rollback;
