begin;
\ir ../_fixtures.psql
select plan(2);

-- An Instagram Reel and a Facebook Reel published 4 days ago, on accounts holding credentials.
insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, channel_id, credentials_enc)
values ('tech-explained', 'instagram', '@ig-sched', '17841400000000002', 'sealed'), ('tech-explained', 'facebook', 'Sched-Page', '100000000000002', 'sealed');
create temp table reels as
  select mdame.begin_publication((tests.unit_ready_to_publish()).id, a.id) as p, a.platform
    from mdame.dimension_accounts a where a.channel_handle in ('@ig-sched', 'Sched-Page');
update mdame.publications p set status = 'published', external_id = 'reel-' || p.platform, published_at = mdame.engine_now() - interval '4 days'
 where p.id in (select (r.p).id from reels r);

select is(mdame.schedule_analytics_fetches(), 2, 'both Reels'' day-3 windows are enqueued');
select is((select array_agg(c.platform order by c.platform) from mdame.claim_analytics_fetches(10, 60) c), array['facebook', 'instagram'],
  'claimed with their platforms, so the tick reads their insights');

select * from finish();
rollback;
