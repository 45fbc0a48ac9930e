begin;
\ir ../_fixtures.psql
select plan(4);

create temp table a as select * from mdame.connect_account('tech-explained', 'youtube', '@new-channel', null, '123-abc.apps.googleusercontent.com');
select is((select oauth_client_id from a), '123-abc.apps.googleusercontent.com', 'the account records the OAuth client it was connected through');
select is((select row(upload_calls_per_day, api_units_per_day)::text from mdame.youtube_projects where oauth_client_id = '123-abc.apps.googleusercontent.com'),
  row(100, 10000)::text, 'a new client is a new Google project with YouTube''s default buckets');
select is((mdame.connect_account('tech-explained', 'youtube', '@new-channel', null, 'other.apps.googleusercontent.com')).oauth_client_id,
  'other.apps.googleusercontent.com', 'a reconnect through another client moves the account to that project');
select throws_ok($$select mdame.connect_account('tech-explained', 'youtube', '@x', null, ' ')$$, '22023', null, 'an empty client id is refused');

select * from finish();
rollback;
