-- The ops dashboard's queues (GET /pipeline/ops/queues, shared/contracts/ops.ts OpsQueues): every
-- pgmq queue's metrics (pgmq.metrics_all, in pgmq 1.4 and 1.5 and the compatible SQL alike) with
-- how many of its messages are invisible and how many of those were read, and the pull workers
-- that beat for it within the last day (mdame.worker_heartbeats: live, stale or stopped by
-- mdame.worker_status, at most 200, live ones first); the leases held and the stale ones, whose
-- time ran out with nothing taking them back yet (a stage task's claim, a worker job's read, a
-- scene generation claim); and the latest lease of each stage runner and scene generator, the one
-- trace of their heartbeats the schema keeps. Leases, beats and ages use the database clock. A
-- stage task in a retry's backoff is no lease (stage_task_leases tells them apart by the unit's
-- lease); a worker job in a backoff counts as held, since pgmq records no reader and a backoff and
-- a heartbeat both only move the message's visibility.

create or replace function mdame.ops_queues()
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_metric record;
  v_invisible bigint;
  v_leased bigint;
  v_queues jsonb := '[]'::jsonb;
  v_stale jsonb;
  v_workers jsonb;
  v_leases jsonb;
  v_pullers jsonb;
begin
  for v_metric in select m.queue_name, m.queue_length, m.newest_msg_age_sec, m.oldest_msg_age_sec, m.total_messages
                    from pgmq.metrics_all() m order by m.queue_name loop
    execute format('select count(*) filter (where q.vt > $1), count(*) filter (where q.vt > $1 and q.read_ct > 0) from pgmq.%I q',
                   'q_' || v_metric.queue_name)
       into v_invisible, v_leased using v_now;
    select coalesce(jsonb_agg(jsonb_build_object(
             'worker_id', w.worker_id, 'host', w.host, 'pid', w.pid, 'concurrency', w.concurrency, 'jobs_held', w.jobs_held,
             'started_at', w.started_at, 'last_beat_at', w.last_beat_at,
             'last_beat_age_s', floor(extract(epoch from v_now - w.last_beat_at))::bigint, 'status', w.status)
             order by w.status <> 'live', w.status = 'stopped', w.worker_id), '[]'::jsonb)
      into v_pullers
      from (select h.*, mdame.worker_status(h, v_now) as status from mdame.worker_heartbeats h
             where h.queue_name = v_metric.queue_name and h.last_beat_at > v_now - interval '1 day'
             order by mdame.worker_status(h, v_now) <> 'live', h.stopped_at is not null, h.worker_id
             limit 200) w;
    v_queues := v_queues || jsonb_build_object(
      'queue_name', v_metric.queue_name,
      'depth', v_metric.queue_length,
      'visible', v_metric.queue_length - v_invisible,
      'invisible', v_invisible,
      'leased', v_leased,
      'oldest_msg_age_s', v_metric.oldest_msg_age_sec,
      'newest_msg_age_s', v_metric.newest_msg_age_sec,
      'total_messages', v_metric.total_messages,
      'workers', v_pullers);
  end loop;

  with worker_jobs as (
    select 'visual_generation' as queue, w.msg_id, w.vt, (w.message->>'unit_id') as unit_text from pgmq.q_visual_generation w where w.read_ct > 0
    union all
    select 'render', r.msg_id, r.vt, (r.message->>'unit_id') from pgmq.q_render r where r.read_ct > 0
  ), stale as (
    select 'stage_task' as kind, t.holder, 'stage_tasks/' || t.msg_id as subject, t.unit_id::text as unit_text, t.vt as expired_at
      from mdame.stage_task_leases(v_now) t where t.state = 'lease_expired'
    union all
    select 'worker_job', null, j.queue || '/' || j.msg_id, j.unit_text, j.vt from worker_jobs j where j.vt <= v_now
    union all
    select 'scene_claim', g.holder, g.scene_hash || '/' || g.backend, null, g.lease_until
      from mdame.scene_generation_claims g where g.lease_until <= v_now
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'kind', s.kind, 'holder', s.holder, 'subject', s.subject,
           'unit_id', case when s.unit_text ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then s.unit_text end,
           'expired_at', s.expired_at,
           'expired_for_s', floor(extract(epoch from v_now - s.expired_at))::bigint) order by s.expired_at, s.subject), '[]'::jsonb)
    into v_stale
    from (select * from stale order by expired_at, subject limit 100) s;

  select jsonb_build_object(
    'stage_tasks', (select jsonb_build_object('held', count(*) filter (where t.state = 'leased'), 'stale', count(*) filter (where t.state = 'lease_expired'))
                      from mdame.stage_task_leases(v_now) t),
    'worker_jobs', (select jsonb_build_object('held', count(*) filter (where j.vt > v_now), 'stale', count(*) filter (where j.vt <= v_now))
                      from (select w.vt from pgmq.q_visual_generation w where w.read_ct > 0
                            union all select r.vt from pgmq.q_render r where r.read_ct > 0) j),
    'scene_claims', (select jsonb_build_object('held', count(*) filter (where g.lease_until > v_now), 'stale', count(*) filter (where g.lease_until <= v_now))
                       from mdame.scene_generation_claims g))
    into v_leases;

  -- Stage runners name each claim <worker>/<msg_id>/<read_ct>; a unit keeps its last lease after its
  -- stage moves on, so the latest one per worker is its last claim or heartbeat (within a day).
  with runners as (
    select regexp_replace(u.lease_holder, '/[0-9]+/[0-9]+$', '') as worker_id, max(u.lease_expires_at) as latest
      from mdame.work_units u
     where u.lease_holder is not null and u.lease_expires_at > v_now - interval '1 day'
     group by 1
  ), runner_claims as (
    select regexp_replace(t.holder, '/[0-9]+/[0-9]+$', '') as worker_id, count(*) as held
      from mdame.stage_task_leases(v_now) t where t.state = 'leased' and t.holder is not null
     group by 1
  ), activity as (
    select 'stage_runner' as kind, r.worker_id, coalesce(c.held, 0) as held, r.latest, 'work_unit_lease' as source
      from runners r left join runner_claims c on c.worker_id = r.worker_id
    union all
    select 'scene_generator', g.holder, count(*) filter (where g.lease_until > v_now), max(g.lease_until), 'scene_generation_claim'
      from mdame.scene_generation_claims g group by g.holder
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'kind', a.kind, 'worker_id', a.worker_id, 'leases_held', a.held, 'latest_lease_until', a.latest,
           'live', coalesce(a.latest > v_now, false), 'source', a.source) order by a.kind, a.worker_id), '[]'::jsonb)
    into v_workers
    from activity a;

  return jsonb_build_object('now', v_now, 'queues', v_queues, 'leases', v_leases, 'stale_leases', v_stale, 'lease_holders', v_workers);
end;
$$;
