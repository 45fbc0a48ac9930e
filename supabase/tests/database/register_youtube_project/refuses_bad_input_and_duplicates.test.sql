begin;
\ir ../_fixtures.psql
select plan(8);

select mdame.register_youtube_project('second', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body');

select throws_ok($$select mdame.register_youtube_project('Second Project', 'x.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body')$$, '22023', null, 'a name with capitals and spaces is refused');
select throws_ok($$select mdame.register_youtube_project('default', 'x.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body')$$, '22023', null, 'default is the environment''s client');
select throws_ok($$select mdame.register_youtube_project('third', ' ', 'v2.0a1b2c3d.iv.body')$$, '22023', null, 'an empty client id is refused');
select throws_ok($$select mdame.register_youtube_project('third', 'x.apps.googleusercontent.com', null)$$, '22023', null, 'a missing secret is refused');
select throws_ok($$select mdame.register_youtube_project('third', 'x.apps.googleusercontent.com', 'plain-secret')$$, '22023', null, 'a secret in clear is refused');
select throws_ok($$select mdame.register_youtube_project('third', 'x.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body', -1)$$, '22023', null, 'a negative size is refused');
select throws_ok($$select mdame.register_youtube_project('second', 'x.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body')$$, 'MDS01',
  'a YouTube project named second is registered already (client second.apps.googleusercontent.com): choose another name, or remove it first', 'a name taken is refused');
select throws_ok($$select mdame.register_youtube_project('again', 'second.apps.googleusercontent.com', 'v2.0a1b2c3d.iv.body')$$, 'MDS01',
  'the OAuth client second.apps.googleusercontent.com is registered already as project second', 'a client registered already is refused');

select * from finish();
rollback;
