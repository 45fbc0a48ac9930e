begin;
\ir ../_fixtures.psql
select plan(4);

select is((mdame.connect_account('tech-explained', 'instagram', '@sky_facts', '17841400000000001', '100000000000001')).platform, 'instagram',
  'an Instagram account connects');
select is((mdame.connect_account('tech-explained', 'facebook', 'Sky Facts', '100000000000777', '100000000000001')).channel_id, '100000000000777',
  'a Facebook Page connects with its Page id');
select ok(not exists (select 1 from mdame.youtube_projects where oauth_client_id = '100000000000001'), 'the Meta app is no Google project');
select is((select code from tests.refusal($$select mdame.connect_account('tech-explained', 'threads', '@x', null, 'c')$$)), '22023',
  'a platform the engine does not publish to is refused');

select * from finish();
rollback;
