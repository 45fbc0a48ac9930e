begin;
\ir ../_fixtures.psql
select plan(6);

-- tech-explained publishes to YouTube and to a Facebook Page; the Page will not take the video.
create temp table fb as select (mdame.connect_account('tech-explained', 'facebook', 'Sky Facts', '100000000000777', '100000000000001')).id;
create temp table yt as select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo';
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p as select (mdame.begin_publication((select id from u), (select id from fb))).id;

select is((select (status, skip_reason) from mdame.skip_publication((select id from p), 'the video lasts 120 s; Facebook Reels last 3 to 90 s')),
  ('skipped'::text, 'the video lasts 120 s; Facebook Reels last 3 to 90 s'::text), 'the publication ends skipped with its reason');
select is((select kind from mdame.events where unit_id = (select id from u) order by id desc limit 1), 'publication_skipped', 'an event records it');
select is((select status from mdame.defer_publication((select id from p), 'rate_limited', null)), 'skipped', 'a skipped publication is not deferred later');
select is((select skip_reason from mdame.skip_publication((select id from p), 'another reason')), 'the video lasts 120 s; Facebook Reels last 3 to 90 s',
  'a repeat keeps the first reason');

select is((mdame.complete_publication((select msg_id from m), (mdame.begin_publication((select id from u), (select id from yt))).id, 'vid-1', 'step:t:1:x')).stage,
  'published', 'with the other account published, the unit is published');
select is((select code from tests.refusal(format('select mdame.skip_publication(%L, %L)', (select id from p), ' '))), '22023', 'a reason is required');

select * from finish();
rollback;
