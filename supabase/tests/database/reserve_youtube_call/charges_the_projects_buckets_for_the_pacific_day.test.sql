begin;
\ir ../_fixtures.psql
select plan(6);

create temp table p as select * from tests.fresh_publication();
create temp table e as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p));

select is((select row(oauth_client_id, bucket, cost, status, entry)::text from e), row('default', 'uploads', 1, 'reserved', 'call')::text,
  'an upload takes one call from the upload bucket of the account''s project, reserved');
select is((select quota_day from e), mdame.youtube_quota_day(now()), 'it is charged to the current Pacific quota day');
select is((mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p))).id, (select id from e),
  'a repeat for the same publication returns the reservation it holds (a resumed upload is not charged twice)');
select is((select count(*) from mdame.quota_ledger), 1::bigint, 'and adds no row');

create temp table l as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.update');
select is((select row(bucket, cost)::text from l), row('units', 50)::text, 'videos.update takes its 50 units from the units bucket');
select is((mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.list')).cost, 1, 'videos.list costs one unit');

select * from finish();
rollback;
