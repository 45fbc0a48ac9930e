begin;
\ir ../_fixtures.psql
select plan(6);

create temp table pub as select * from tests.fresh_publication();
update mdame.work_units set quality = '{"passed": true, "integrated_lufs": -14, "true_peak_dbtp": -1.5, "duration_s": 40, "checks": [], "failures": []}'
 where id = (select unit_id from pub);
create temp table sc as select * from tests.add_scene((select unit_id from pub), 0, 'ready');
update mdame.scenes set backend = 'pexels/1' where id = (select id from sc);
insert into mdame.scene_cache (scene_hash, backend, asset_key, credit)
select scene_hash, 'pexels/1', asset_key, '{"author": "Jane"}' from sc;
insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                   average_view_duration_s, average_view_percentage, likes, retention)
select id, 3, now(), current_date - 3, current_date, 10, 8, 20, 50, 1, '[]' from pub;

create temp table d as select mdame.ops_video((select id from pub)) as o;

select is((select o->'video'->>'id' from d), (select id::text from pub), 'the publication is shown');
select is((select o->'quality'->>'passed' from d), 'true', 'with the quality gate''s report');
select is((select o->'render'->>'key' from d), (select 'renders/' || unit_id || '.mp4' from pub), 'and the render''s key');
select is((select o->'scenes'->0->'credit' from d), '{"author": "Jane"}'::jsonb, 'each scene carries its clip''s credit');
select is((select (o->'analytics'->0->>'views')::int from d), 10, 'and the analytics windows');
select is(mdame.ops_video(gen_random_uuid()), null, 'an unknown publication is null');

select * from finish();
rollback;
