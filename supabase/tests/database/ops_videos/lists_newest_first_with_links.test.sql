begin;
\ir ../_fixtures.psql
select plan(4);

create temp table older as select * from tests.fresh_publication();
create temp table newer as select * from tests.fresh_publication();
update mdame.publications set status = 'published', external_id = 'yt-old', published_at = now() - interval '2 days' where id = (select id from older);
update mdame.publications set status = 'published', external_id = 'yt-new', published_at = now() - interval '1 hour' where id = (select id from newer);

select is((select array_agg(v->>'external_id') from jsonb_array_elements(mdame.ops_videos(10)) v where v->>'external_id' like 'yt-%'),
          array['yt-new', 'yt-old'], 'newest publication first');
select is((select v->>'url' from jsonb_array_elements(mdame.ops_videos(10)) v where v->>'external_id' = 'yt-new'),
          'https://www.youtube.com/shorts/yt-new', 'a YouTube video links to its Shorts page');
select is(jsonb_array_length(mdame.ops_videos(1)), 1, 'the limit is kept');
select is((select v->>'title' from jsonb_array_elements(mdame.ops_videos(10)) v where v->>'external_id' = 'yt-new'), 'Test title', 'the title is the script''s');

select * from finish();
rollback;
