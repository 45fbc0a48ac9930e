begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.register_youtube_project('second', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body', 3);
update mdame.dimensions set daily_limit = 2 where id = 'tech-explained';
update mdame.dimensions set daily_limit = 1 where id = 'sains-singkat';
-- Two channels of tech-explained and one of sains-singkat on the second project, one of them paused; one other account on default.
insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, oauth_client_id, credentials_enc, active) values
  ('tech-explained', 'youtube', '@p1', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body', true),
  ('tech-explained', 'youtube', '@p2', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body', true),
  ('sains-singkat', 'youtube', '@p3', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body', false),
  ('sains-singkat', 'youtube', '@d1', 'default', 'v2.0a1b2c3d.iv.body', true);

create temp table p as select * from mdame.get_youtube_projects();
select is((select row(accounts, active_accounts, planned_uploads_per_day, upload_calls_per_day)::text from p where name = 'second'),
  row(3, 2, 4, 3)::text, 'planned uploads: each active account uploads its active dimension''s daily_limit');
select is((select planned_uploads_per_day from p where oauth_client_id = 'default'), 1, 'the default project counts its own accounts only');
select is((select name from p limit 1), 'second', 'named projects come first');

update mdame.dimensions set active = false where id = 'tech-explained';
select is((select planned_uploads_per_day from mdame.get_youtube_projects() where name = 'second'), 0, 'a paused dimension plans nothing');

select * from finish();
rollback;
