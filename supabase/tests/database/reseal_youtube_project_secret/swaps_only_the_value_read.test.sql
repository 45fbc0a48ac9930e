begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.register_youtube_project('second', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.aaaa.bbbb');

select is((mdame.reseal_youtube_project_secret('second.apps.googleusercontent.com', 'v2.0a1b2c3d.aaaa.bbbb', 'v2.1a2b3c4d.cccc.dddd')).client_secret_enc,
  'v2.1a2b3c4d.cccc.dddd', 'the value read is replaced by the re-sealed one');
select is((mdame.reseal_youtube_project_secret('second.apps.googleusercontent.com', 'v2.0a1b2c3d.aaaa.bbbb', 'v2.9a2b3c4d.eeee.ffff')).client_secret_enc,
  'v2.1a2b3c4d.cccc.dddd', 'a stale read changes nothing');
select throws_ok($$select mdame.reseal_youtube_project_secret('second.apps.googleusercontent.com', 'v2.1a2b3c4d.cccc.dddd', 'plain')$$, '22023', null, 'a value not in the current format is refused');
select throws_ok($$select mdame.reseal_youtube_project_secret('nope', 'v2.1a2b3c4d.cccc.dddd', 'v2.1a2b3c4d.cccc.dddd')$$, 'MDN01', null, 'an unknown client is MDN01');

select * from finish();
rollback;
