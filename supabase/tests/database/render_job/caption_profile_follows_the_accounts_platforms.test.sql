begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('render');
select is((select captions->>'profile' from mdame.dimensions where id = 'tech-explained'), 'platforms', 'the fixture dimension follows its platforms');
select is(mdame.render_job((select id from u))->>'caption_profile', 'youtube_shorts', 'all its active accounts on YouTube: the Shorts zone');

select mdame.connect_account('tech-explained', 'tiktok', '@tok-creator', null, 'tiktok-client-key');
select is(mdame.render_job((select id from u))->>'caption_profile', 'intersection', 'on YouTube and TikTok: clear of both overlays');

update mdame.dimension_accounts set active = false where dimension_id = 'tech-explained' and platform = 'youtube';
select is(mdame.render_job((select id from u))->>'caption_profile', 'tiktok', 'a paused account does not count: TikTok alone');

update mdame.dimension_accounts set active = false where dimension_id = 'tech-explained';
select is(mdame.render_job((select id from u))->>'caption_profile', 'intersection', 'no active account: clear of every overlay');

select * from finish();
rollback;
