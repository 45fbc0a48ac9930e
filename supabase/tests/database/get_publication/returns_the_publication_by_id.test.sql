begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_ready_to_publish();
insert into mdame.publications (unit_id, account_id, platform, status, video_key, external_id)
select id, tests.account_of('tech-explained'), 'youtube', 'published', 'renders/' || id || '.mp4', 'yt-video-1' from u;
create temp table p as select * from mdame.publications where external_id = 'yt-video-1';
insert into mdame.publications (unit_id, account_id, platform)
select id, tests.account_of('sains-singkat'), 'youtube' from u;

select is((select count(*) from mdame.get_publication((select id from p))), 1::bigint, 'a publication id returns one publication');
select is((select row(unit_id, account_id, status, external_id)::text from mdame.get_publication((select id from p))),
          (select row(id, tests.account_of('tech-explained'), 'published', 'yt-video-1')::text from u),
          'the one asked for: its unit, account, status and the platform''s video id, not the other account''s');
select is((select to_jsonb(g) from mdame.get_publication((select id from p)) g), (select to_jsonb(p) from p),
          'every column as stored');
select is((select count(*) from mdame.get_publication(gen_random_uuid())), 0::bigint, 'an unknown id returns nothing');

select * from finish();
rollback;
