begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('render');
update mdame.dimension_accounts set active = false where dimension_id = 'tech-explained';
select mdame.connect_account('tech-explained', 'instagram', '@sky_facts', '17841400000000001', '100000000000001');
select is(mdame.render_job((select id from u))->>'caption_profile', 'reels', 'all its active accounts on Instagram: the Reels zone');

select mdame.connect_account('tech-explained', 'facebook', 'Sky Facts', '100000000000777', '100000000000001');
select is(mdame.render_job((select id from u))->>'caption_profile', 'reels', 'on Instagram and Facebook: both show Reels, one zone');

update mdame.dimension_accounts set active = true where dimension_id = 'tech-explained' and platform = 'youtube';
select is(mdame.render_job((select id from u))->>'caption_profile', 'intersection', 'with YouTube too: clear of every overlay');

select * from finish();
rollback;
