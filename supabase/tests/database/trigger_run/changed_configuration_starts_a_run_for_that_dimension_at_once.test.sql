begin;
\ir ../_fixtures.psql
select plan(8);

create temp table first as select * from mdame.trigger_run('dev', 'manual', current_date, null);
update mdame.dimensions set tts_rate = '+10%', narration_min_words = 70 where id = 'sains-singkat';
create temp table second as select * from mdame.trigger_run('dev', 'manual', current_date, null);
create temp table third as select * from mdame.trigger_run('dev', 'manual', current_date, null);

select is((select created from second), true, 'a changed configuration starts a new run the same day');
select isnt((select run_id from second), (select run_id from first), 'under another key');
select is((select array_agg(dimension_id) from mdame.run_dimensions where run_id = (select run_id from second)),
          array['sains-singkat'], 'for the changed dimension only');
select is((select status from mdame.run_dimensions where run_id = (select run_id from second)), 'ingesting',
          'which ingests at once while the first run is still running');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from second))), 1::bigint,
          'with its ingest task enqueued');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from first))),
          (select count(*) from mdame.dimensions where active), 'the first run keeps its work');
select is((select config->>'tts_rate' from mdame.run_dimensions where run_id = (select run_id from first) and dimension_id = 'sains-singkat'),
          '+0%', 'and the configuration it started with');
select is((select (run_id, created) from third), ((select run_id from second), false), 'a repeat after the change returns the new run');

select * from finish();
rollback;
