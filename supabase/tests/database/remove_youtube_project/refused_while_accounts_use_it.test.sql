begin;
\ir ../_fixtures.psql
select plan(5);

select mdame.register_youtube_project('second', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body');
create temp table a as select * from mdame.connect_account('tech-explained', 'youtube', '@second-channel', null, 'second.apps.googleusercontent.com');
update mdame.dimension_accounts set credentials_enc = 'v2.0a1b2c3d.iv.body', active = false where id = (select id from a);

select throws_ok($$select mdame.remove_youtube_project('second')$$, 'MDS01', null, 'refused while an account (paused or not) holds credentials through it');
select throws_ok($$select mdame.remove_youtube_project('nope')$$, 'MDN01', 'no YouTube project nope', 'an unknown name is MDN01');

-- An account kept only as the record of its publications holds no credentials: it does not hold the project.
update mdame.dimension_accounts set credentials_enc = null where id = (select id from a);
select is((select name from mdame.remove_youtube_project('second')), 'second', 'removed once no account needs it, answering what was registered');
select is((select row(name, client_secret_enc)::text from mdame.youtube_projects where oauth_client_id = 'second.apps.googleusercontent.com'),
  row(null::text, null::text)::text, 'the name and the sealed secret are erased; the row stays for the ledger');
select lives_ok($$select mdame.register_youtube_project('second', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body')$$, 'the name can be registered again');

select * from finish();
rollback;
