begin;
\ir ../_fixtures.psql
select plan(4);

create temp table r as select mdame.trigger_scheduled_run() as run_id;

select is((select (env, trigger_kind, run_date) from mdame.pipeline_runs where id = (select run_id from r)),
          ('dev'::text, 'cron'::text, (now() at time zone 'utc')::date), 'a cron run starts for this environment and UTC day');
select is((select idempotency_key from mdame.pipeline_runs where id = (select run_id from r)),
          encode(sha256(convert_to('dev:' || (now() at time zone 'utc')::date || ':cron:'
                                   || (select mdame.canonical_json(jsonb_object_agg(d.id, mdame.config_hash(mdame.dimension_config(d))))
                                         from mdame.dimensions d where d.active), 'UTF8')), 'hex'),
          'keyed by sha256(env:date:cron:{dimension: config hash})');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from r))),
          (select count(*) from mdame.dimensions where active), 'one ingest task per active dimension');
select is((select holder from mdame.system_locks where name = 'pipeline:dev'), (select run_id::text from r), 'the run holds the global lock');

select * from finish();
rollback;
