begin;
\ir ../_fixtures.psql
select plan(5);

create temp table first as select * from mdame.trigger_run('dev', 'manual', current_date, null);
create temp table second as select * from mdame.trigger_run('dev', 'manual', current_date, null);
create temp table one as select * from mdame.trigger_run('dev', 'manual', current_date, 'sains-singkat');

select is((select created from first), true, 'the first trigger of the day starts a run');
select is((select (run_id, created) from second), ((select run_id from first), false), 'the same trigger again returns that run');
select is((select (run_id, created) from one), ((select run_id from first), false), 'so does a trigger for one dimension it covers');
select is((select count(*) from mdame.pipeline_runs), 1::bigint, 'one run');
select is((select array_agg(config_hash order by dimension_id) from mdame.run_dimensions where run_id = (select run_id from first)),
          (select array_agg(mdame.config_hash(mdame.dimension_config(d)) order by d.id) from mdame.dimensions d where d.active),
          'the run records each dimension''s configuration hash');

select * from finish();
rollback;
