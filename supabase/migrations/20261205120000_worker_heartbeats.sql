-- Pull workers that scale out: each gpu-worker and render-runner process beats into
-- mdame.worker_heartbeats (record_worker_heartbeat at start and every beat interval,
-- record_worker_stop on a clean stop); mdame.queues_without_workers names the worker queues with
-- jobs waiting and no live worker; mdame.ops_queues lists each queue's workers, and calls the
-- stage runners' and scene generators' latest leases lease_holders (the worker queues' readers,
-- which named no one, are now their heartbeat rows).

-- The pull workers (gpu-worker, render-runner) that are or were at work: one row per worker
-- process, written by mdame.record_worker_heartbeat when it starts and every beat interval after,
-- and by mdame.record_worker_stop when it stops cleanly. Beats use the database clock, as the ops
-- pages' leases and ages do. A worker that stops beating is stale (mdame.worker_status); rows of
-- workers silent for longer than a week are removed by the next worker that starts.

create table mdame.worker_heartbeats (
  worker_id text not null,
  queue_name text not null,
  host text not null,
  pid integer not null,
  concurrency integer not null,
  jobs_held integer not null default 0,
  beat_interval_s integer not null,
  started_at timestamp with time zone not null default clock_timestamp(),
  last_beat_at timestamp with time zone not null default clock_timestamp(),
  stopped_at timestamp with time zone,
  constraint worker_heartbeats_pkey primary key (worker_id),
  constraint worker_heartbeats_worker_id_check check ((length(worker_id) between 1 and 200)),
  constraint worker_heartbeats_host_check check ((length(host) between 1 and 255)),
  constraint worker_heartbeats_pid_check check ((pid > 0)),
  constraint worker_heartbeats_concurrency_check check ((concurrency between 1 and 1000)),
  constraint worker_heartbeats_jobs_held_check check ((jobs_held between 0 and concurrency)),
  constraint worker_heartbeats_beat_interval_s_check check ((beat_interval_s between 1 and 3600))
);

create index worker_heartbeats_queue_name_idx on mdame.worker_heartbeats using btree (queue_name);
create index worker_heartbeats_last_beat_at_idx on mdame.worker_heartbeats using btree (last_beat_at);

alter table mdame.worker_heartbeats enable row level security;

-- The pgmq queues the Bun pull workers serve (gpu-worker: visual_generation, render-runner:
-- render): the queues a worker may beat for, and the ones mdame.queues_without_workers watches.
-- stage_tasks and analytics_fetches are drained by the pipeline Edge Function, not pulled.

create or replace function mdame.worker_queues()
returns setof text
language sql
immutable
set search_path = ''
as $$
  select q from unnest(array['render', 'visual_generation']) q;
$$;

comment on function mdame.worker_queues() is 'internal: the queues the pull workers serve, for record_worker_heartbeat and queues_without_workers';

revoke all on function mdame.worker_queues() from public, anon, authenticated;

-- The one rule for whether a pull worker is at work: 'stopped' once it recorded a clean stop,
-- 'stale' when its last beat is older than p_stale_after (when null: three of its own beat
-- intervals, so one late or lost beat does not make it stale), 'live' otherwise. p_now is the
-- database clock the beats were written with.

create or replace function mdame.worker_status(p_worker mdame.worker_heartbeats, p_now timestamp with time zone, p_stale_after interval default null::interval)
returns text
language sql
immutable
set search_path = ''
as $$
  select case
           when p_worker.stopped_at is not null then 'stopped'
           when p_worker.last_beat_at < p_now - coalesce(p_stale_after, make_interval(secs => 3 * p_worker.beat_interval_s)) then 'stale'
           else 'live'
         end;
$$;

comment on function mdame.worker_status(mdame.worker_heartbeats, timestamp with time zone, interval) is 'internal: the live/stale/stopped rule of ops_queues and queues_without_workers';

revoke all on function mdame.worker_status(mdame.worker_heartbeats, timestamp with time zone, interval) from public, anon, authenticated;

-- A pull worker's beat (shared/worker/worker-heartbeat.ts): at start and every beat interval after,
-- with the jobs it holds. The first beat of a worker id inserts its row, and removes the rows of
-- workers silent for more than seven days (bounded growth: a fleet's restarts leave one row each).
-- Later beats move last_beat_at and jobs_held. A worker id belongs to one process: a beat naming
-- another host, pid or queue than the row's is refused with MDS01; a beat after the worker's clean
-- stop (a late one, in flight while it stopped) returns the stopped row unchanged.

create or replace function mdame.record_worker_heartbeat(p_worker_id text, p_queue text, p_host text, p_pid integer, p_concurrency integer, p_jobs_held integer, p_beat_interval_s integer)
returns mdame.worker_heartbeats
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.worker_heartbeats;
  v_now timestamp with time zone := clock_timestamp();
begin
  if coalesce(length(p_worker_id), 0) not between 1 and 200 then
    raise exception 'a worker id is 1 to 200 characters' using errcode = '22023';
  elsif p_queue is null or p_queue not in (select mdame.worker_queues()) then
    raise exception 'not a worker queue: % (workers pull %)', left(coalesce(p_queue, 'null'), 64),
      (select string_agg(q, ', ') from mdame.worker_queues() q) using errcode = '22023';
  elsif coalesce(length(p_host), 0) not between 1 and 255 then
    raise exception 'a worker''s host is 1 to 255 characters' using errcode = '22023';
  elsif coalesce(p_pid, 0) <= 0 then
    raise exception 'a worker''s pid is a positive integer' using errcode = '22023';
  elsif coalesce(p_concurrency, 0) not between 1 and 1000 then
    raise exception 'a worker''s concurrency is 1 to 1000, not %', p_concurrency using errcode = '22023';
  elsif p_jobs_held is null or p_jobs_held not between 0 and p_concurrency then
    raise exception 'a worker holds 0 to its concurrency (%) jobs, not %', p_concurrency, p_jobs_held using errcode = '22023';
  elsif coalesce(p_beat_interval_s, 0) not between 1 and 3600 then
    raise exception 'a worker''s beat interval is 1 to 3600 seconds, not %', p_beat_interval_s using errcode = '22023';
  end if;

  select * into v_row from mdame.worker_heartbeats h where h.worker_id = p_worker_id for update;
  if not found then
    insert into mdame.worker_heartbeats as h (worker_id, queue_name, host, pid, concurrency, jobs_held, beat_interval_s, started_at, last_beat_at)
    values (p_worker_id, p_queue, p_host, p_pid, p_concurrency, p_jobs_held, p_beat_interval_s, v_now, v_now)
    on conflict (worker_id) do nothing
    returning * into v_row;
    if v_row.worker_id is not null then
      delete from mdame.worker_heartbeats h where h.last_beat_at < v_now - interval '7 days';
      return v_row;
    end if;
    -- Another session inserted the same id meanwhile: the guards below judge it.
    select * into v_row from mdame.worker_heartbeats h where h.worker_id = p_worker_id for update;
  end if;

  if v_row.host <> p_host or v_row.pid <> p_pid or v_row.queue_name <> p_queue then
    raise exception 'worker id % is held by pid % on % (queue %): give each worker process its own id',
      left(p_worker_id, 64), v_row.pid, left(v_row.host, 64), v_row.queue_name using errcode = 'MDS01';
  elsif v_row.stopped_at is not null then
    return v_row;
  end if;

  update mdame.worker_heartbeats h
     set concurrency = p_concurrency, jobs_held = p_jobs_held, beat_interval_s = p_beat_interval_s, last_beat_at = v_now
   where h.worker_id = p_worker_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.record_worker_heartbeat(text, text, text, integer, integer, integer, integer) from public, anon, authenticated;
grant execute on function mdame.record_worker_heartbeat(text, text, text, integer, integer, integer, integer) to mdame_engine;
grant execute on function mdame.record_worker_heartbeat(text, text, text, integer, integer, integer, integer) to service_role;

-- A pull worker's clean stop, once its in-flight jobs are finished: the row is marked stopped and
-- holds no jobs, so the queues page and mdame.queues_without_workers no longer count it. Unknown
-- worker ids are refused with MDN01; a repeated stop returns the stopped row unchanged.

create or replace function mdame.record_worker_stop(p_worker_id text)
returns mdame.worker_heartbeats
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.worker_heartbeats;
  v_now timestamp with time zone := clock_timestamp();
begin
  select * into v_row from mdame.worker_heartbeats h where h.worker_id = p_worker_id for update;
  if not found then
    raise exception 'no worker % has beaten', left(coalesce(p_worker_id, 'null'), 64) using errcode = 'MDN01';
  elsif v_row.stopped_at is not null then
    return v_row;
  end if;

  update mdame.worker_heartbeats h
     set jobs_held = 0, last_beat_at = v_now, stopped_at = v_now
   where h.worker_id = p_worker_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.record_worker_stop(text) from public, anon, authenticated;
grant execute on function mdame.record_worker_stop(text) to mdame_engine;
grant execute on function mdame.record_worker_stop(text) to service_role;

-- For alerting: the worker queues (mdame.worker_queues) with jobs waiting (visible now: never read,
-- or back after a lease ran out) and no live worker, i.e. none that beat within p_stale_after (when
-- null: each worker's own three beat intervals, the rule of mdame.worker_status) and has not
-- stopped. A queue nobody ever pulled is named too. Database clock, as the beats are.

create or replace function mdame.queues_without_workers(p_stale_after interval default null::interval)
returns table(queue_name text, waiting bigint, oldest_waiting_s bigint, workers_known bigint, last_beat_at timestamp with time zone)
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_now timestamp with time zone := clock_timestamp();
  v_queue text;
begin
  if p_stale_after is not null and p_stale_after <= interval '0' then
    raise exception 'p_stale_after must be a positive interval, not %', p_stale_after using errcode = '22023';
  end if;
  for v_queue in select q from mdame.worker_queues() q order by q loop
    if exists (select 1 from mdame.worker_heartbeats h
                where h.queue_name = v_queue and mdame.worker_status(h, v_now, p_stale_after) = 'live') then
      continue;
    end if;
    execute format('select count(*), floor(extract(epoch from $1 - min(q.enqueued_at)))::bigint from pgmq.%I q where q.vt <= $1', 'q_' || v_queue)
       into waiting, oldest_waiting_s using v_now;
    if waiting = 0 then
      continue;
    end if;
    queue_name := v_queue;
    select count(*), max(h.last_beat_at) into workers_known, last_beat_at
      from mdame.worker_heartbeats h where h.queue_name = v_queue;
    return next;
  end loop;
end;
$$;

revoke all on function mdame.queues_without_workers(interval) from public, anon, authenticated;
grant execute on function mdame.queues_without_workers(interval) to mdame_engine;
grant execute on function mdame.queues_without_workers(interval) to service_role;

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

revoke all on function mdame.ops_queues() from public, anon, authenticated;
grant execute on function mdame.ops_queues() to mdame_engine;
grant execute on function mdame.ops_queues() to service_role;

select mdame.restrict_function_privileges();
