-- The ops dashboard's JSON API (shared/contracts/ops.ts, docs/ops-api.md): one read RPC per view,
-- run-now of the engine's own schedules through a fixed whitelist, and indexes for the views' orderings.

create index work_units_failed_idx on mdame.work_units (updated_at) where (stage = 'failed'::text);
create index work_units_lease_idx on mdame.work_units (lease_expires_at) where (lease_holder is not null);
create index publications_recent_idx on mdame.publications (COALESCE(published_at, created_at));
create index pipeline_runs_run_date_idx on mdame.pipeline_runs (run_date, created_at);

-- The fixed list of the engine's pg_cron jobs the operator may run at once, and the function each
-- one's schedule calls (supabase/schemas/mdame/schedules.sql): null for any other name. Nothing
-- read from cron.job is ever executed; run_engine_job calls the function this list names.

create or replace function mdame.engine_job_function(p_name text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case p_name
           when 'mdame-tick' then 'mdame.tick()'
           when 'mdame-scheduled-runs' then 'mdame.trigger_scheduled_run()'
           when 'mdame-publish-drain' then 'mdame.drain_deferred_publications()'
           when 'mdame-alerts' then 'mdame.check_alerts()'
           when 'mdame-analytics-fetches' then 'mdame.schedule_analytics_fetches()'
           when 'mdame-weekly-reports' then 'mdame.queue_weekly_reports()'
           when 'mdame-weekly-reports-retry' then 'mdame.wake_due_weekly_reports()'
           when 'mdame-adapt-weekly' then 'mdame.mark_adaptation_week_due()'
         end;
$$;

comment on function mdame.engine_job_function(text) is 'internal: the run-now whitelist of ops_schedules and run_engine_job';

revoke all on function mdame.engine_job_function(text) from public, anon, authenticated;

-- Each message of the stage queue and where it stands, for the ops views: `waiting` (visible, never
-- read or read and handed back), `delayed` (sent with a delay, never read), `leased` (a claim holds
-- it: the unit's lease names this read of the message and ends when the message's visibility does,
-- as claim_stage_tasks and extend_stage_lease set them), `lease_expired` (that claim ran out and no
-- runner took the message again yet), `retrying` (a failed attempt's backoff, set by
-- retry_or_dead_letter: read before, invisible, and no live claim). A message without a unit has no
-- unit lease: read and invisible counts as leased. PL/pgSQL: the declared schema creates functions
-- before the queues.

create or replace function mdame.stage_task_leases(p_now timestamp with time zone)
returns table(msg_id bigint, read_ct integer, vt timestamp with time zone, unit_id uuid, holder text, state text)
language plpgsql
stable
set search_path = ''
as $$
begin
  return query
  select q.msg_id, q.read_ct, q.vt, u.id,
         case when q.read_ct > 0 and (u.id is null or mdame.holds_stage_claim(u.lease_holder, q.msg_id, q.read_ct)) then u.lease_holder end,
         case
           when q.read_ct = 0 then case when q.vt > p_now then 'delayed' else 'waiting' end
           when u.id is null and not (q.message ? 'unit_id') or mdame.holds_stage_claim(u.lease_holder, q.msg_id, q.read_ct) and u.lease_expires_at = q.vt
             then case when q.vt > p_now then 'leased' else 'lease_expired' end
           else case when q.vt > p_now then 'retrying' else 'waiting' end
         end
    from pgmq.q_stage_tasks q
    left join mdame.work_units u
      on u.id = case when q.message->>'unit_id' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then (q.message->>'unit_id')::uuid end;
end;
$$;

comment on function mdame.stage_task_leases(timestamp with time zone) is 'internal: the stage queue''s messages and their lease states, for ops_overview and ops_queues';

revoke all on function mdame.stage_task_leases(timestamp with time zone) from public, anon, authenticated;

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
  v_stages text[] := array['script', 'safety', 'plan', 'media', 'render', 'publish', 'deferred', 'published', 'rejected', 'failed'];
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

revoke all on function mdame.ops_overview(integer) from public, anon, authenticated;
grant execute on function mdame.ops_overview(integer) to mdame_engine;
grant execute on function mdame.ops_overview(integer) to service_role;

-- The ops dashboard's queues (GET /pipeline/ops/queues, shared/contracts/ops.ts OpsQueues): every
-- pgmq queue's metrics (pgmq.metrics_all, in pgmq 1.4 and 1.5 and the compatible SQL alike) with
-- how many of its messages are invisible and how many of those were read; the leases held and the
-- stale ones, whose time ran out with nothing taking them back yet (a stage task's claim, a worker
-- job's read, a scene generation claim); and each worker's latest lease, the one trace of its
-- heartbeats the schema keeps. Leases and ages use the database clock. A stage task in a retry's
-- backoff is no lease (stage_task_leases tells them apart by the unit's lease); a worker job in a
-- backoff counts as held, since pgmq records no reader and a backoff and a heartbeat both only move
-- the message's visibility.

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
begin
  for v_metric in select m.queue_name, m.queue_length, m.newest_msg_age_sec, m.oldest_msg_age_sec, m.total_messages
                    from pgmq.metrics_all() m order by m.queue_name loop
    execute format('select count(*) filter (where q.vt > $1), count(*) filter (where q.vt > $1 and q.read_ct > 0) from pgmq.%I q',
                   'q_' || v_metric.queue_name)
       into v_invisible, v_leased using v_now;
    v_queues := v_queues || jsonb_build_object(
      'queue_name', v_metric.queue_name,
      'depth', v_metric.queue_length,
      'visible', v_metric.queue_length - v_invisible,
      'invisible', v_invisible,
      'leased', v_leased,
      'oldest_msg_age_s', v_metric.oldest_msg_age_sec,
      'newest_msg_age_s', v_metric.newest_msg_age_sec,
      'total_messages', v_metric.total_messages);
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
    union all
    select 'visual_generation', null, count(*) filter (where w.vt > v_now), max(w.vt), 'queue_visibility'
      from pgmq.q_visual_generation w where w.read_ct > 0
    union all
    select 'render', null, count(*) filter (where r.vt > v_now), max(r.vt), 'queue_visibility'
      from pgmq.q_render r where r.read_ct > 0
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'kind', a.kind, 'worker_id', a.worker_id, 'leases_held', a.held, 'latest_lease_until', a.latest,
           'live', coalesce(a.latest > v_now, false), 'source', a.source) order by a.kind, a.worker_id), '[]'::jsonb)
    into v_workers
    from activity a;

  return jsonb_build_object('now', v_now, 'queues', v_queues, 'leases', v_leases, 'stale_leases', v_stale, 'workers', v_workers);
end;
$$;

revoke all on function mdame.ops_queues() from public, anon, authenticated;
grant execute on function mdame.ops_queues() to mdame_engine;
grant execute on function mdame.ops_queues() to service_role;

-- The ops dashboard's recent publications (GET /pipeline/ops/videos, shared/contracts/ops.ts
-- OpsVideo): newest first by when they were published (else created), with the platform's public
-- link of each uploaded video. At most 500.

create or replace function mdame.ops_videos(p_limit integer)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(v.video order by v.at desc, v.id), '[]'::jsonb)
    from (
      select p.id, coalesce(p.published_at, p.created_at) as at,
             jsonb_build_object(
               'id', p.id, 'unit_id', p.unit_id, 'run_id', u.run_id, 'dimension_id', u.dimension_id,
               'platform', p.platform, 'channel_handle', a.channel_handle, 'external_id', p.external_id,
               'url', case when p.external_id is null then null
                           when p.platform = 'youtube' then 'https://www.youtube.com/shorts/' || p.external_id
                           else 'https://www.tiktok.com/@' || ltrim(a.channel_handle, '@') || '/video/' || p.external_id end,
               'title', coalesce(u.script->>'title', u.topic->>'title'),
               'status', p.status, 'privacy_status', p.privacy_status, 'deferred_reason', p.deferred_reason,
               'created_at', p.created_at, 'published_at', p.published_at) as video
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       order by coalesce(p.published_at, p.created_at) desc, p.id
       limit least(greatest(coalesce(p_limit, 0), 0), 500)
    ) v;
$$;

revoke all on function mdame.ops_videos(integer) from public, anon, authenticated;
grant execute on function mdame.ops_videos(integer) to mdame_engine;
grant execute on function mdame.ops_videos(integer) to service_role;

-- One publication for the ops dashboard (GET /pipeline/ops/videos/:id, shared/contracts/ops.ts
-- OpsVideoDetail): the publication as ops_videos shows it, the unit's quality-gate report and
-- rendered video, its scenes with the backend and credit of each clip (the scene cache's entry),
-- and its analytics windows. Null when there is no such publication. The route adds the signed URL.

create or replace function mdame.ops_video(p_publication_id uuid)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select jsonb_build_object(
           'video', jsonb_build_object(
             'id', p.id, 'unit_id', p.unit_id, 'run_id', u.run_id, 'dimension_id', u.dimension_id,
             'platform', p.platform, 'channel_handle', a.channel_handle, 'external_id', p.external_id,
             'url', case when p.external_id is null then null
                         when p.platform = 'youtube' then 'https://www.youtube.com/shorts/' || p.external_id
                         else 'https://www.tiktok.com/@' || ltrim(a.channel_handle, '@') || '/video/' || p.external_id end,
             'title', coalesce(u.script->>'title', u.topic->>'title'),
             'status', p.status, 'privacy_status', p.privacy_status, 'deferred_reason', p.deferred_reason,
             'created_at', p.created_at, 'published_at', p.published_at),
           'quality', u.quality,
           'render', jsonb_build_object(
             'key', coalesce(p.video_key, u.video->>'video_key'),
             'duration_s', (u.video->>'duration_s')::numeric,
             'width', (u.video->>'width')::integer,
             'height', (u.video->>'height')::integer,
             'size_bytes', (u.video->>'size_bytes')::bigint),
           'scenes', (select coalesce(jsonb_agg(jsonb_build_object(
                        'scene_index', s.scene_index, 'status', s.status, 'duration_s', s.duration_s, 'narration', s.narration,
                        'backend', s.backend, 'backend_name', c.backend_name, 'asset_key', s.asset_key, 'cache_hit', s.cache_hit,
                        'credit', c.credit) order by s.scene_index), '[]'::jsonb)
                        from mdame.scenes s
                        left join lateral (
                          select sc.backend_name, sc.credit from mdame.scene_cache sc
                           where sc.scene_hash = s.scene_hash and (sc.backend = s.backend or sc.asset_key = s.asset_key)
                           order by sc.backend = s.backend desc limit 1
                        ) c on true
                       where s.unit_id = u.id),
           'analytics', (select coalesce(jsonb_agg(jsonb_build_object(
                           'window_days', va.window_days, 'fetched_at', va.fetched_at, 'period_start', va.period_start,
                           'period_end', va.period_end, 'views', va.views, 'engaged_views', va.engaged_views,
                           'average_view_duration_s', va.average_view_duration_s, 'average_view_percentage', va.average_view_percentage,
                           'likes', va.likes, 'retention', va.retention) order by va.window_days), '[]'::jsonb)
                           from mdame.video_analytics va where va.publication_id = p.id))
    from mdame.publications p
    join mdame.work_units u on u.id = p.unit_id
    join mdame.dimension_accounts a on a.id = p.account_id
   where p.id = p_publication_id;
$$;

revoke all on function mdame.ops_video(uuid) from public, anon, authenticated;
grant execute on function mdame.ops_video(uuid) to mdame_engine;
grant execute on function mdame.ops_video(uuid) to service_role;

-- The ops dashboard's quota and account health (GET /pipeline/ops/quota, shared/contracts/ops.ts
-- OpsQuota): each Google project's three YouTube buckets for the current quota day (the Pacific
-- date of the engine clock), used (settled) and reserved against the project's size; each TikTok
-- account's rate windows; every dimension account's state and upload window. Which granted scopes
-- are missing is worked out by the route (OPS_REQUIRED_SCOPES). PL/pgSQL: the declared schema
-- creates it before youtube_quota_day, which a SQL body would need to exist.

create or replace function mdame.ops_quota()
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  return (
  with clock as (
    select mdame.engine_now() as now, mdame.youtube_quota_day(mdame.engine_now()) as day
  ), buckets as (
    select pr.oauth_client_id, b.bucket, b.ord,
           case b.bucket when 'uploads' then pr.upload_calls_per_day when 'units' then pr.api_units_per_day
                         else pr.analytics_queries_per_day end as size
      from mdame.youtube_projects pr
     cross join unnest(array['uploads', 'units', 'analytics']) with ordinality b(bucket, ord)
  ), spent as (
    select l.oauth_client_id, l.bucket,
           coalesce(sum(l.cost) filter (where l.status = 'settled'), 0) as used,
           coalesce(sum(l.cost) filter (where l.status = 'reserved'), 0) as reserved
      from mdame.quota_ledger l, clock
     where l.quota_day = clock.day
     group by l.oauth_client_id, l.bucket
  )
  select jsonb_build_object(
    'quota_day', clock.day,
    'resets_at', mdame.youtube_quota_resets_at(clock.day),
    'youtube', (select coalesce(jsonb_agg(jsonb_build_object(
                  'oauth_client_id', b.oauth_client_id, 'bucket', b.bucket,
                  'used', coalesce(s.used, 0), 'reserved', coalesce(s.reserved, 0), 'limit', b.size,
                  'remaining', b.size - coalesce(s.used, 0) - coalesce(s.reserved, 0)) order by b.oauth_client_id, b.ord), '[]'::jsonb)
                  from buckets b left join spent s on s.oauth_client_id = b.oauth_client_id and s.bucket = b.bucket
                 where b.oauth_client_id = 'default'
                    or exists (select 1 from mdame.dimension_accounts a where a.oauth_client_id = b.oauth_client_id and a.platform = 'youtube')),
    'tiktok', (select coalesce(jsonb_agg(jsonb_build_object(
                 'account_id', a.id, 'channel_handle', a.channel_handle, 'call_kind', rl.call_kind,
                 'used', (select count(*) from mdame.tiktok_calls t
                           where t.account_id = a.id and t.call_kind = rl.call_kind
                             and t.created_at > clock.now - make_interval(secs => rl.per_seconds)),
                 'limit', rl.calls, 'window_s', rl.per_seconds) order by a.dimension_id, a.channel_handle, rl.call_kind), '[]'::jsonb)
                 from mdame.dimension_accounts a cross join mdame.tiktok_rate_limits rl
                where a.platform = 'tiktok'),
    'accounts', (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', a.id, 'dimension_id', a.dimension_id, 'platform', a.platform, 'channel_handle', a.channel_handle,
                   'status', case when a.health_state = 'needs_reconnect' then 'needs_reconnect'
                                  when a.credentials_enc is null then 'not_connected'
                                  when not a.active then 'paused'
                                  else 'active' end,
                   'health_reason', a.health_reason, 'health_since', a.health_since, 'oauth_client_id', a.oauth_client_id,
                   'granted_scopes', to_jsonb(a.granted_scopes),
                   'upload_cap_24h', a.upload_cap_24h,
                   'uploads_24h', case when a.platform = 'youtube'
                     then (select count(*) from mdame.quota_ledger l
                            where l.account_id = a.id and l.entry = 'call' and l.call_kind = 'videos.insert' and l.status <> 'released'
                              and l.created_at > clock.now - interval '24 hours')
                     else (select count(*) from mdame.tiktok_calls t
                            where t.account_id = a.id and t.call_kind = 'video.init' and t.created_at > clock.now - interval '24 hours') end,
                   'upload_cap_full_until', a.upload_cap_full_until) order by a.dimension_id, a.platform, a.channel_handle), '[]'::jsonb)
                   from mdame.dimension_accounts a))
  from clock);
end;
$$;

revoke all on function mdame.ops_quota() from public, anon, authenticated;
grant execute on function mdame.ops_quota() to mdame_engine;
grant execute on function mdame.ops_quota() to service_role;

-- The ops dashboard's schedules (GET /pipeline/ops/schedules, shared/contracts/ops.ts
-- OpsScheduleList): the engine's pg_cron jobs (mdame-*) with their command cut short, their last
-- run from cron.job_run_details when it can be read, and whether run_engine_job can run them. The
-- route works out each next run from the cron expression. Definer's rights, as list_schedules:
-- cron.job shows a role only its own jobs, and the jobs belong to the migration owner.

create or replace function mdame.ops_schedules()
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_schedules jsonb;
  v_details_readable boolean := false;
begin
  if to_regclass('cron.job') is null then
    return jsonb_build_object('cron_available', false, 'run_details_readable', false, 'schedules', '[]'::jsonb);
  end if;
  if to_regclass('cron.job_run_details') is not null then
    begin
      perform 1 from cron.job_run_details limit 1;
      v_details_readable := true;
    exception when insufficient_privilege then
      v_details_readable := false;
    end;
  end if;
  if v_details_readable then
    select coalesce(jsonb_agg(jsonb_build_object(
             'name', j.jobname, 'schedule', j.schedule, 'active', j.active, 'command', left(j.command, 200),
             'last_run', case when d.status is null then null else jsonb_build_object(
                           'status', d.status, 'start_time', d.start_time, 'end_time', d.end_time,
                           'return_message', left(d.return_message, 500)) end,
             'runnable', mdame.engine_job_function(j.jobname) is not null) order by j.jobid), '[]'::jsonb)
      into v_schedules
      from cron.job j
      left join lateral (
        select r.status, r.start_time, r.end_time, r.return_message from cron.job_run_details r
         where r.jobid = j.jobid order by r.runid desc limit 1
      ) d on true
     where j.jobname like 'mdame-%';
  else
    select coalesce(jsonb_agg(jsonb_build_object(
             'name', j.jobname, 'schedule', j.schedule, 'active', j.active, 'command', left(j.command, 200),
             'last_run', null, 'runnable', mdame.engine_job_function(j.jobname) is not null) order by j.jobid), '[]'::jsonb)
      into v_schedules
      from cron.job j
     where j.jobname like 'mdame-%';
  end if;
  return jsonb_build_object('cron_available', true, 'run_details_readable', v_details_readable, 'schedules', v_schedules);
end;
$$;

revoke all on function mdame.ops_schedules() from public, anon, authenticated;
grant execute on function mdame.ops_schedules() to mdame_engine;
grant execute on function mdame.ops_schedules() to service_role;

-- "Run now" of the ops dashboard (POST /pipeline/ops/schedules/:name/run): calls at once the
-- function one of the engine's pg_cron jobs calls, by a fixed mapping (engine_job_function), never
-- by executing the job's command text. MDN01 for a name outside the list. Returns the job's name,
-- the function and its result as JSON.

create or replace function mdame.run_engine_job(p_name text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_function text := mdame.engine_job_function(p_name);
  v_result jsonb;
begin
  if v_function is null then
    raise exception 'no engine schedule %', left(coalesce(p_name, '(null)'), 80) using errcode = 'MDN01';
  end if;
  case p_name
    when 'mdame-tick' then v_result := mdame.tick();
    when 'mdame-scheduled-runs' then
      select coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb) into v_result from mdame.trigger_scheduled_run() t;
    when 'mdame-publish-drain' then v_result := to_jsonb(mdame.drain_deferred_publications());
    when 'mdame-alerts' then v_result := mdame.check_alerts();
    when 'mdame-analytics-fetches' then v_result := to_jsonb(mdame.schedule_analytics_fetches());
    when 'mdame-weekly-reports' then v_result := to_jsonb(mdame.queue_weekly_reports());
    when 'mdame-weekly-reports-retry' then v_result := to_jsonb(mdame.wake_due_weekly_reports());
    when 'mdame-adapt-weekly' then v_result := to_jsonb(mdame.mark_adaptation_week_due());
  end case;
  return jsonb_build_object('name', p_name, 'function', v_function, 'result', v_result, 'ran_at', clock_timestamp());
end;
$$;

revoke all on function mdame.run_engine_job(text) from public, anon, authenticated;
grant execute on function mdame.run_engine_job(text) to mdame_engine;
grant execute on function mdame.run_engine_job(text) to service_role;

select mdame.restrict_function_privileges();
