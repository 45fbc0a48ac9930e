begin;
\ir ../_fixtures.psql
\ir ../schedule_analytics_fetches/_published.psql
select plan(6);

create temp table pub as select * from tests.published_video(interval '4 days');
select mdame.schedule_analytics_fetches();

create temp table c as select * from mdame.claim_analytics_fetches(10, 60);
select is((select count(*)::int from c), 1, 'the due fetch is claimed');
select is((select external_id from c), (select external_id from pub), 'with the video to ask about');
select is((select attempts from c), 1, 'its first attempt');
select ok(not (select account_ready from c), 'an account without stored credentials is not ready to fetch');
select is((select count(*)::int from mdame.claim_analytics_fetches(10, 60)), 0, 'a claimed fetch is invisible until its timeout');

-- A fetch given up meanwhile: its message is archived at the next claim instead of being handed out.
update mdame.analytics_fetches set status = 'given_up';
update pgmq.q_analytics_fetches set vt = now() - interval '1 second';
select is((select count(*)::int from mdame.claim_analytics_fetches(10, 60)), 0, 'a fetch no longer queued is not handed out');

select * from finish();
rollback;
