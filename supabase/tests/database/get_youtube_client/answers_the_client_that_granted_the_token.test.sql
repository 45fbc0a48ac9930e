begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.register_youtube_project('second', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body');
create temp table a as select * from mdame.connect_account('tech-explained', 'youtube', '@second-channel', null, 'second.apps.googleusercontent.com');

select is((select row(oauth_client_id, name, client_secret_enc)::text from mdame.get_youtube_client((select id from a))),
  row('second.apps.googleusercontent.com', 'second', 'v2.0a1b2c3d.iv.body')::text, 'a registered project answers its sealed secret');
select is((select row(oauth_client_id, name, client_secret_enc)::text
             from mdame.get_youtube_client((select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'))),
  row('default', null::text, null::text)::text, 'an account of the default project has no secret of its own: the environment''s serves it');
select throws_ok($$select * from mdame.get_youtube_client(gen_random_uuid())$$, 'MDN01', null, 'an unknown account is MDN01');

select * from finish();
rollback;
