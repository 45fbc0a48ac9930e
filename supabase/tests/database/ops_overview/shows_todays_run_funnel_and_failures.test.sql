begin;
\ir ../_fixtures.psql
select plan(8);

-- A run of today (engine clock, UTC) for tech-explained: units at script, render and failed.
create temp table seeded as select * from tests.unit_at_stage('script');
update mdame.pipeline_runs set run_date = (mdame.engine_now() at time zone 'UTC')::date where id = (select run_id from seeded);
insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, error)
select run_id, 'tech-explained', md5(random()::text), md5(random()::text), '{"title": "t"}', s.stage, s.error
  from seeded, (values ('render', null), ('failed', 'voice: every provider failed')) s(stage, error);

create temp table overview as select mdame.ops_overview(10) as o;

select is((select o->>'today' from overview), (mdame.engine_now() at time zone 'UTC')::date::text, 'today is the engine clock''s UTC date');
select is((select d->'run'->>'id' from overview, jsonb_array_elements(o->'dimensions') d where d->>'dimension_id' = 'tech-explained'),
          (select run_id::text from seeded), 'the dimension shows today''s run');
select is((select jsonb_object_agg(f->>'stage', (f->>'units')::int) from overview, jsonb_array_elements(o->'dimensions') d, jsonb_array_elements(d->'funnel') f
            where d->>'dimension_id' = 'tech-explained' and (f->>'units')::int > 0),
          '{"script": 1, "render": 1, "failed": 1}'::jsonb, 'its funnel counts the run''s units per stage');
select is((select jsonb_array_length(d->'funnel') from overview, jsonb_array_elements(o->'dimensions') d where d->>'dimension_id' = 'tech-explained'),
          11, 'every stage is in the funnel, zeros included');
select is((select d->'run' from overview, jsonb_array_elements(o->'dimensions') d where d->>'dimension_id' = 'sains-singkat'),
          'null'::jsonb, 'a dimension no run of today covers has no run');
select is((select o->'counts'->'runs' from overview), '[{"state": "running", "count": 1}]'::jsonb, 'today''s runs are counted by status');
select is((select f->>'reason' from overview, jsonb_array_elements(o->'failures') f where f->>'kind' = 'unit'),
          'voice: every provider failed', 'a failed unit is listed with its reason');

update mdame.pipeline_runs set status = 'failed', error = 'ingest failed', finished_at = now() where id = (select run_id from seeded);
select is((select count(*)::int from jsonb_array_elements(mdame.ops_overview(1)->'failures')), 1, 'the failures are cut to the limit');

select * from finish();
rollback;
