begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.youtube_projects set upload_calls_per_day = 1 where oauth_client_id = 'default';
-- sains-singkat's channel was connected through another OAuth client: another Google project.
insert into mdame.youtube_projects (oauth_client_id, upload_calls_per_day) values ('other-client.apps.googleusercontent.com', 1);
update mdame.dimension_accounts set oauth_client_id = 'other-client.apps.googleusercontent.com' where dimension_id = 'sains-singkat';
-- Yesterday's (Pacific) upload of tech-explained does not count today.
select tests.past_uploads(tests.account_of('tech-explained'), 1, interval '25 hours');
update mdame.dimension_accounts set upload_cap_24h = 50;

create temp table p1 as select * from tests.fresh_publication();
create temp table p2 as select * from tests.fresh_publication('sains-singkat');
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p1)),
  'an earlier quota day''s upload leaves today''s bucket whole');
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('sains-singkat'), 'videos.insert', (select id from p2)),
  'another project''s bucket is its own');
select is((select count(distinct oauth_client_id) from mdame.quota_ledger where quota_day = mdame.youtube_quota_day(now())), 2::bigint,
  'each call is charged to its account''s project');

select * from finish();
rollback;
