begin;
select plan(6);

select is(mdame.external_url('youtube', 'dQw4w9WgXcQ', '@chan'), 'https://www.youtube.com/shorts/dQw4w9WgXcQ', 'a Short by its video id');
select is(mdame.external_url('tiktok', '7300000000000000001', '@someone'), 'https://www.tiktok.com/@someone/video/7300000000000000001',
  'a TikTok post by the handle without its @ and the post id');
select is(mdame.external_url('facebook', '1234567890123456', 'Some Page'), 'https://www.facebook.com/reel/1234567890123456', 'a Facebook Reel by its video id');
select is(mdame.external_url('instagram', '17900000000000001', '@someone'), null, 'no link from an Instagram media id alone');
select is(mdame.external_url('youtube', null, '@chan'), null, 'nothing uploaded: no link');
select is(mdame.external_url('tiktok', null, '@someone'), null, 'nothing uploaded on TikTok: no link');

select * from finish();
rollback;
