begin;
\ir ../_fixtures.psql
select plan(4);

create temp table p as select * from mdame.register_youtube_project('second', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body', 200);
select is((select row(name, client_secret_enc, upload_calls_per_day, api_units_per_day)::text from p),
  row('second', 'v2.0a1b2c3d.iv.body', 200, 10000)::text, 'the project keeps its name, its sealed secret, the size given and YouTube''s default for the rest');
select is((select name from mdame.youtube_projects where oauth_client_id = 'second.apps.googleusercontent.com'), 'second', 'the row is stored');

-- A client the engine met through a connect is registered in place, keeping the size it had.
select mdame.connect_account('tech-explained', 'youtube', '@met', null, 'met.apps.googleusercontent.com');
update mdame.youtube_projects set upload_calls_per_day = 300 where oauth_client_id = 'met.apps.googleusercontent.com';
select is((select row(name, upload_calls_per_day)::text from mdame.register_youtube_project('met', 'met.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body')),
  row('met', 300)::text, 'a client met through a connect is registered in place with the size it had');
select is((select count(*)::integer from mdame.youtube_projects where oauth_client_id = 'met.apps.googleusercontent.com'), 1, 'no second row');

select * from finish();
rollback;
