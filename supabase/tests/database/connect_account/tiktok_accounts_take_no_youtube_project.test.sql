begin;
\ir ../_fixtures.psql
select plan(4);

create temp table t as select * from mdame.connect_account('tech-explained', 'tiktok', '@tok-creator', 'open-id-1', 'tiktok-client-key');
select is((select platform from t), 'tiktok', 'a TikTok account is created');
select is((select oauth_client_id from t), 'tiktok-client-key', 'with the client key it was connected through');
select is((select count(*)::int from mdame.youtube_projects where oauth_client_id = 'tiktok-client-key'), 0, 'which is no Google project');
select throws_ok($$ select mdame.connect_account('tech-explained', 'vimeo', '@someone', null, 'k') $$, '22023', null,
  'a platform the engine does not publish to is refused');

select * from finish();
rollback;
