begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(3);

-- A public TikTok post (named by its post id) and a SELF_ONLY one (named by its publish id: TikTok
-- gives a private post no id video/query knows), both published 4 days ago.
create temp table public_post as select tests.post_with_counts('Public', '7300000000000000011', 3, now() - interval '1 day', 1, 0, 0, 0) as id;
create temp table private_post as select tests.post_with_counts('Private', 'v_pub_url~v2.7300000000000000012', 3, now() - interval '1 day', 1, 0, 0, 0) as id;
delete from mdame.video_analytics;
update mdame.dimension_accounts set credentials_enc = 'sealed' where platform = 'tiktok';

select is(mdame.schedule_analytics_fetches(), 1, 'the public post''s day-3 window is enqueued, the private one''s is not');
select is((select publication_id from mdame.analytics_fetches), (select id from public_post), 'the public post''s');
select is((select platform from mdame.claim_analytics_fetches(10, 60)), 'tiktok', 'claimed with its platform, so the tick asks TikTok');

select * from finish();
rollback;
