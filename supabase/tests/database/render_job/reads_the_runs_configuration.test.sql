begin;
\ir ../_fixtures.psql
select plan(4);

-- The run started with a bed and a caption font of its own (run_dimensions.config, as start_run stores it).
create temp table u as select * from tests.unit_at_stage('render');
update mdame.run_dimensions rd
   set config = mdame.dimension_config(d) || '{"music": {"library": "music/calm", "gain_db": -10, "duck_db": 10, "fade_s": 1.5}}'::jsonb
                || jsonb_build_object('style', d.style || '{"caption_font": "DejaVu Serif"}'::jsonb)
  from mdame.dimensions d
 where rd.run_id = (select run_id from u) and d.id = rd.dimension_id;
create temp table before as select mdame.render_job((select id from u)) as job;
select is((select job->'music'->>'library' from before), 'music/calm', 'the job carries the run''s bed');
select is((select job->>'caption_font' from before), 'DejaVu Serif', 'and the run''s caption font');

-- The dimension changes during the day: the unit under way keeps its run's configuration.
update mdame.dimensions set music = '{"library": "music/loud", "gain_db": -6, "duck_db": 8, "fade_s": 1}',
                            style = style || '{"caption_font": "DejaVu Sans Mono"}' where id = 'tech-explained';
select is(mdame.render_job((select id from u)), (select job from before), 'the same job, step token included');
update mdame.dimensions set captions = captions || '{"profile": "tiktok"}' where id = 'tech-explained';
select is(mdame.render_job((select id from u))->>'caption_profile', (select job->>'caption_profile' from before), 'and the same caption zone');

select * from finish();
rollback;
