begin;
\ir ../_fixtures.psql
select plan(7);

-- Dimensions with no publish or run time start at 06:00 UTC, all in one run, as the daily run did.
update mdame.dimensions set created_at = '2026-01-01T00:00:00Z';

select is((select count(*) from mdame.trigger_due_runs('2026-12-10T05:59:00Z')), 0::bigint, 'nothing is due at 05:59 UTC');
create temp table r as select * from mdame.trigger_due_runs('2026-12-10T06:00:00Z');

select is((select count(*) from r), 1::bigint, 'at 06:00 UTC one run starts');
select is((select (env, trigger_kind, run_date, dimension_filter) from mdame.pipeline_runs where id = (select run_id from r)),
          ('dev'::text, 'cron'::text, date '2026-12-10', null::text), 'a cron run of this environment and UTC day');
select is((select array_agg(dimension_id order by dimension_id) from mdame.run_dimensions where run_id = (select run_id from r)),
          (select array_agg(id order by id) from mdame.dimensions where active), 'covering every active dimension');
select is((select idempotency_key from mdame.pipeline_runs where id = (select run_id from r)),
          encode(sha256(convert_to('dev:2026-12-10:cron:'
                                   || (select mdame.canonical_json(jsonb_object_agg(d.id, mdame.config_hash(mdame.dimension_config(d))))
                                         from mdame.dimensions d where d.active), 'UTF8')), 'hex'),
          'keyed by sha256(env:date:cron:{dimension: config hash})');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from r))),
          (select count(*) from mdame.dimensions where active), 'one ingest task per active dimension');
select is((select count(*) from mdame.system_locks where name = 'pipeline:dev'), 0::bigint, 'and holds no lock once its pass ends');

select * from finish();
rollback;
