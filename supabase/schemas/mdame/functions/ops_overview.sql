-- The ops dashboard's overview (GET /pipeline/ops/overview, shared/contracts/ops.ts OpsOverview):
-- today's run per active dimension with its units' funnel, counts by state, the latest failures.
-- Today is the engine clock's UTC date; queue states use the database clock, as pgmq does. A worker
-- job in a retry's backoff counts as leased: pgmq records no reader, and a backoff and a heartbeat
-- both only move the message's visibility.

create or replace function mdame.ops_overview(p_failures integer)
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
  v_today date := (mdame.engine_now() at time zone 'UTC')::date;
  v_limit integer := least(greatest(coalesce(p_failures, 20), 1), 200);
  v_stages text[] := array['script', 'safety', 'plan', 'media', 'render', 'awaiting_review', 'publish', 'deferred', 'published', 'rejected', 'failed'];
  v_dimensions jsonb;
  v_runs jsonb;
  v_units jsonb;
  v_stage_tasks jsonb;
  v_worker_jobs jsonb;
  v_failures jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'dimension_id', d.id,
           'display_name', d.display_name,
           'run', case when l.run_id is null then null else jsonb_build_object(
                    'id', l.run_id, 'status', l.run_status, 'trigger_kind', l.trigger_kind, 'run_date', l.run_date,
                    'created_at', l.created_at, 'finished_at', l.finished_at, 'error', l.error) end,
           'ingest_status', l.ingest_status,
           'topics_seen', coalesce(l.topics_seen, 0),
           'units_created', coalesce(l.units_created, 0),
           'funnel', (select jsonb_agg(jsonb_build_object('stage', s.stage,
                        'units', (select count(*) from mdame.work_units u where u.run_id = l.run_id and u.dimension_id = d.id and u.stage = s.stage))
                        order by s.ord)
                        from unnest(v_stages) with ordinality s(stage, ord))
         ) order by d.id), '[]'::jsonb)
    into v_dimensions
    from mdame.dimensions d
    left join lateral (
      select r.id as run_id, r.status as run_status, r.trigger_kind, r.run_date, r.created_at, r.finished_at, r.error,
             rd.status as ingest_status, rd.topics_seen, rd.units_created
        from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
       where rd.dimension_id = d.id and r.run_date = v_today
       order by r.created_at desc
       limit 1
    ) l on true
   where d.active;

  select coalesce(jsonb_agg(jsonb_build_object('state', status, 'count', n) order by status), '[]'::jsonb) into v_runs
    from (select r.status, count(*) as n from mdame.pipeline_runs r where r.run_date = v_today group by r.status) c;

  select coalesce(jsonb_agg(jsonb_build_object('state', stage, 'count', n) order by array_position(v_stages, stage)), '[]'::jsonb) into v_units
    from (select u.stage, count(*) as n from mdame.pipeline_runs r join mdame.work_units u on u.run_id = r.id
           where r.run_date = v_today group by u.stage) c;

  select jsonb_build_array(
           jsonb_build_object('state', 'waiting', 'count', count(*) filter (where t.state in ('waiting', 'lease_expired'))),
           jsonb_build_object('state', 'leased', 'count', count(*) filter (where t.state = 'leased')),
           jsonb_build_object('state', 'retrying', 'count', count(*) filter (where t.state = 'retrying')),
           jsonb_build_object('state', 'delayed', 'count', count(*) filter (where t.state = 'delayed')),
           jsonb_build_object('state', 'dead_lettered', 'count',
             (select count(*) from mdame.dead_letters dl where dl.queue_name = 'stage_tasks' and dl.retried_at is null)))
    into v_stage_tasks
    from mdame.stage_task_leases(clock_timestamp()) t;

  select jsonb_build_array(
           jsonb_build_object('state', 'waiting', 'count', count(*) filter (where q.vt <= clock_timestamp())),
           jsonb_build_object('state', 'leased', 'count', count(*) filter (where q.vt > clock_timestamp() and q.read_ct > 0)),
           jsonb_build_object('state', 'delayed', 'count', count(*) filter (where q.vt > clock_timestamp() and q.read_ct = 0)),
           jsonb_build_object('state', 'dead_lettered', 'count',
             (select count(*) from mdame.dead_letters dl where dl.queue_name in ('visual_generation', 'render') and dl.retried_at is null)))
    into v_worker_jobs
    from (select w.vt, w.read_ct from pgmq.q_visual_generation w
          union all
          select r.vt, r.read_ct from pgmq.q_render r) q;

  select coalesce(jsonb_agg(to_jsonb(f) order by f.at desc, f.id), '[]'::jsonb) into v_failures
    from (
      (select 'unit' as kind, u.id::text as id, u.run_id, u.id as unit_id, u.dimension_id,
              (select e.stage from mdame.events e where e.run_id = u.run_id and e.unit_id = u.id and e.stage is not null order by e.id desc limit 1) as stage,
              coalesce(u.error, 'failed') as reason, u.updated_at as at, null::boolean as retried
         from mdame.work_units u where u.stage = 'failed' order by u.updated_at desc limit v_limit)
      union all
      (select 'run', r.id::text, r.id, null::uuid, r.dimension_filter, null::text,
              coalesce(r.error, 'failed'), coalesce(r.finished_at, r.updated_at), null::boolean
         from mdame.pipeline_runs r where r.status = 'failed' order by coalesce(r.finished_at, r.updated_at) desc limit v_limit)
      union all
      (select 'dead_letter', dl.id::text, u.run_id, dl.unit_id, u.dimension_id, dl.queue_name,
              dl.last_error, dl.created_at, dl.retried_at is not null
         from mdame.dead_letters dl left join mdame.work_units u on u.id = dl.unit_id
        order by dl.created_at desc limit v_limit)
      order by at desc, id
      limit v_limit
    ) f;

  return jsonb_build_object(
    'today', v_today,
    'engine_now', v_now,
    'dimensions', v_dimensions,
    'counts', jsonb_build_object('runs', v_runs, 'work_units', v_units, 'stage_tasks', v_stage_tasks, 'worker_jobs', v_worker_jobs),
    'failures', v_failures);
end;
$$;
