-- The weekly auditor: a report per dimension and week (figures, Markdown, chart), queued by pg_cron
-- on Sunday 21:00 UTC and built by the pipeline's tick; cache lookups recorded for its hit rates.

create index events_kind_created_idx on mdame.events (kind, created_at);

create table mdame.weekly_reports (
  id uuid not null default gen_random_uuid(),
  dimension_id text not null,
  week_start date not null,
  status text not null default 'pending'::text,
  attempts integer not null default 0,
  lease_holder text,
  next_attempt_at timestamp with time zone not null,
  last_error text,
  report jsonb,
  markdown text,
  chart_key text,
  alert_id uuid,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  ready_at timestamp with time zone,
  constraint weekly_reports_pkey primary key (id),
  constraint weekly_reports_dimension_id_week_start_key unique (dimension_id, week_start),
  constraint weekly_reports_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id) on delete cascade,
  constraint weekly_reports_alert_id_fkey foreign key (alert_id) references mdame.alerts(id) on delete set null,
  constraint weekly_reports_status_check check ((status = any (array['pending'::text, 'ready'::text, 'failed'::text]))),
  constraint weekly_reports_week_start_check check ((extract(isodow from week_start) = (1)::numeric)),
  constraint weekly_reports_attempts_check check ((attempts >= 0)),
  constraint weekly_reports_ready_check check (((status <> 'ready'::text) or ((report is not null) and (markdown is not null) and (chart_key is not null) and (ready_at is not null))))
);

create index weekly_reports_pending_idx on mdame.weekly_reports (next_attempt_at) where (status = 'pending'::text);

comment on table mdame.weekly_reports is 'One weekly report per dimension and week (Monday..Sunday in the dimension''s publishing time zone): pending until the tick builds it, then ready with its JSON, Markdown and chart key (docs/weekly-report.md).';

alter table mdame.weekly_reports enable row level security;

-- The figures of one dimension's week, as JSON (shared/contracts/weekly-report.ts): the week runs
-- Monday 00:00 to the next Monday 00:00 in the dimension's publishing time zone (publishing.time_zone,
-- UTC when unset); any date of the week selects it. A unit counts in the week in which it reached
-- its end (the stage_entered event of published, rejected or failed); a failure is counted at the
-- stage the unit was in before it failed. Stage latency is the time between a unit entering a stage
-- and entering the next one, for transitions inside the week. Cache rates: scenes from
-- scenes.cache_hit, LLM and TTS from the cache_lookup events (mdame.record_cache_lookup). Quota: the
-- YouTube ledger's calls that were not released, by bucket, and TikTok's calls, by kind. Videos:
-- those whose latest analytics window was fetched during the week, ranked by engaged views and by
-- average view percentage.

create or replace function mdame.weekly_report(p_dimension_id text, p_week_start date)
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_dimension mdame.dimensions;
  v_zone text;
  v_week date := date_trunc('week', p_week_start)::date;
  v_from timestamptz;
  v_to timestamptz;
  v_outcomes jsonb;
  v_daily jsonb;
  v_latency jsonb;
  v_cache jsonb;
  v_quota jsonb;
  v_videos jsonb;
  v_topics jsonb;
begin
  if p_week_start is null then
    raise exception 'a week start date is required' using errcode = '22023';
  end if;
  select * into v_dimension from mdame.dimensions where id = p_dimension_id;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  v_zone := coalesce(nullif(v_dimension.publishing->>'time_zone', ''), 'UTC');
  v_from := v_week::timestamp at time zone v_zone;
  v_to := (v_week + 7)::timestamp at time zone v_zone;

  -- Each unit's stage changes (the stage it left, when it left the one it entered), for the units of
  -- the dimension that changed stage within the week or the 30 days before it.
  with units as (
    select distinct e.unit_id
      from mdame.events e join mdame.work_units u on u.id = e.unit_id
     where e.kind = 'stage_entered' and u.dimension_id = p_dimension_id
       and e.created_at >= v_from - interval '30 days' and e.created_at < v_to
  ), transitions as (
    select e.unit_id, e.stage,
           lag(e.stage) over (partition by e.unit_id order by e.id) as previous,
           e.detail->>'error' as error, e.created_at as at,
           lead(e.created_at) over (partition by e.unit_id order by e.id) as left_at
      from mdame.events e
     where e.kind = 'stage_entered' and e.unit_id in (select unit_id from units)
  ), ends as (
    select t.*, (t.at at time zone v_zone)::date as day from transitions t
     where t.stage in ('published', 'rejected', 'failed') and t.at >= v_from and t.at < v_to
  )
  select jsonb_build_object(
           'published', (select count(*) from ends where stage = 'published'),
           'rejected', (select count(*) from ends where stage = 'rejected'),
           'failed', (select count(*) from ends where stage = 'failed'),
           'rejected_by_reason', coalesce((
             select jsonb_agg(jsonb_build_object('reason', r.reason, 'count', r.n) order by r.n desc, r.reason)
               from (select left(btrim(split_part(coalesce(x.error, 'no reason recorded'), ':', 1)), 120) as reason, count(*) as n
                       from ends x where x.stage = 'rejected' group by 1) r), '[]'::jsonb),
           'failed_by_stage', coalesce((
             select jsonb_agg(jsonb_build_object('stage', f.stage, 'count', f.n) order by f.n desc, f.stage)
               from (select coalesce(x.previous, 'unknown') as stage, count(*) as n
                       from ends x where x.stage = 'failed' group by 1) f), '[]'::jsonb)),
         (select jsonb_agg(jsonb_build_object(
                   'date', d.day,
                   'published', (select count(*) from ends x where x.stage = 'published' and x.day = d.day),
                   'rejected', (select count(*) from ends x where x.stage = 'rejected' and x.day = d.day),
                   'failed', (select count(*) from ends x where x.stage = 'failed' and x.day = d.day))
                 order by d.day)
            from (select (v_week + i) as day from generate_series(0, 6) i) d),
         (select coalesce(jsonb_agg(jsonb_build_object('stage', l.stage, 'samples', l.n, 'p50_s', l.p50, 'p95_s', l.p95)
                                    order by array_position(array['script', 'safety', 'plan', 'media', 'render', 'publish', 'deferred'], l.stage), l.stage), '[]'::jsonb)
            from (select x.stage, count(*) as n,
                         round(percentile_cont(0.5) within group (order by extract(epoch from x.left_at - x.at))::numeric, 1) as p50,
                         round(percentile_cont(0.95) within group (order by extract(epoch from x.left_at - x.at))::numeric, 1) as p95
                    from transitions x
                   where x.left_at is not null and x.left_at >= v_from and x.left_at < v_to
                     and x.stage not in ('published', 'rejected', 'failed')
                   group by x.stage) l)
    into v_outcomes, v_daily, v_latency;

  select jsonb_build_object(
           'scenes', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where s.cache_hit),
                                                'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where s.cache_hit)::numeric / count(*), 4) end)
                        from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                       where u.dimension_id = p_dimension_id and s.cache_hit is not null
                         and s.updated_at >= v_from and s.updated_at < v_to),
           'llm', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where (e.detail->>'hit')::boolean),
                                             'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where (e.detail->>'hit')::boolean)::numeric / count(*), 4) end)
                     from mdame.events e
                    where e.kind = 'cache_lookup' and e.detail->>'cache' = 'llm' and e.detail->>'dimension_id' = p_dimension_id
                      and e.created_at >= v_from and e.created_at < v_to),
           'tts', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where (e.detail->>'hit')::boolean),
                                             'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where (e.detail->>'hit')::boolean)::numeric / count(*), 4) end)
                     from mdame.events e
                    where e.kind = 'cache_lookup' and e.detail->>'cache' = 'tts' and e.detail->>'dimension_id' = p_dimension_id
                      and e.created_at >= v_from and e.created_at < v_to))
    into v_cache;

  select jsonb_build_object(
           'youtube', coalesce((
             select jsonb_agg(jsonb_build_object('bucket', q.bucket, 'used', q.used, 'calls', q.calls) order by q.bucket)
               from (select l.bucket, sum(l.cost) as used, count(*) as calls
                       from mdame.quota_ledger l join mdame.dimension_accounts a on a.id = l.account_id
                      where a.dimension_id = p_dimension_id and l.entry = 'call' and l.status <> 'released'
                        and l.created_at >= v_from and l.created_at < v_to
                      group by l.bucket) q), '[]'::jsonb),
           'tiktok', coalesce((
             select jsonb_agg(jsonb_build_object('call_kind', c.call_kind, 'calls', c.calls) order by c.call_kind)
               from (select t.call_kind, count(*) as calls
                       from mdame.tiktok_calls t join mdame.dimension_accounts a on a.id = t.account_id
                      where a.dimension_id = p_dimension_id and t.created_at >= v_from and t.created_at < v_to
                      group by t.call_kind) c), '[]'::jsonb))
    into v_quota;

  select coalesce(jsonb_agg(jsonb_build_object('reason', r.reason, 'count', r.n) order by r.n desc, r.reason), '[]'::jsonb)
    into v_topics
    from (select t.reason, count(*) as n from mdame.rejected_topics t
           where t.dimension_id = p_dimension_id and t.created_at >= v_from and t.created_at < v_to
           group by t.reason) r;

  with latest as (
    select distinct on (va.publication_id) va.*, p.platform, p.external_id, a.channel_handle, u.script->>'title' as title
      from mdame.video_analytics va
      join mdame.publications p on p.id = va.publication_id
      join mdame.work_units u on u.id = p.unit_id
      join mdame.dimension_accounts a on a.id = p.account_id
     where u.dimension_id = p_dimension_id and va.fetched_at < v_to
     order by va.publication_id, va.window_days desc, va.fetched_at desc
  ), week as (
    select jsonb_build_object(
             'publication_id', l.publication_id,
             'platform', l.platform,
             'title', coalesce(l.title, '(untitled)'),
             'url', case when l.external_id is null then null
                         when l.platform = 'youtube' then 'https://www.youtube.com/shorts/' || l.external_id
                         else 'https://www.tiktok.com/@' || ltrim(l.channel_handle, '@') || '/video/' || l.external_id end,
             'window_days', l.window_days,
             'views', l.views,
             'engaged_views', l.engaged_views,
             'average_view_duration_s', l.average_view_duration_s,
             'average_view_percentage', l.average_view_percentage,
             'likes', l.likes) as video,
           l.engaged_views, l.views, l.average_view_percentage, l.publication_id
      from latest l
     where l.fetched_at >= v_from
  )
  select jsonb_build_object(
           'count', (select count(*) from week),
           'best_engaged', (select w.video from week w order by w.engaged_views desc, w.views desc, w.publication_id limit 1),
           'worst_engaged', (select w.video from week w order by w.engaged_views, w.views, w.publication_id limit 1),
           'best_retention', (select w.video from week w order by w.average_view_percentage desc, w.views desc, w.publication_id limit 1),
           'worst_retention', (select w.video from week w order by w.average_view_percentage, w.views, w.publication_id limit 1))
    into v_videos;

  return jsonb_build_object(
    'dimension_id', v_dimension.id,
    'display_name', v_dimension.display_name,
    'time_zone', v_zone,
    'week_start', v_week,
    'week_end', v_week + 6,
    'generated_at', mdame.engine_now(),
    'outcomes', v_outcomes,
    'topics_rejected', v_topics,
    'daily', v_daily,
    'stage_latency', v_latency,
    'cache', v_cache,
    'quota', v_quota,
    'videos', v_videos);
end;
$$;

revoke all on function mdame.weekly_report(text,date) from public, anon, authenticated;
grant execute on function mdame.weekly_report(text,date) to mdame_engine;
grant execute on function mdame.weekly_report(text,date) to service_role;

-- Records one lookup of a cache the engine consults before paying for a call (llm: the LLM answer
-- cache; tts: stored voice tracks) as a cache_lookup event, whether it hit or not: what the weekly
-- report's hit rates count. Scene cache hits are recorded on the scene itself (scenes.cache_hit).

create or replace function mdame.record_cache_lookup(p_cache text, p_dimension_id text, p_hit boolean,
                                                     p_run_id uuid default null::uuid, p_unit_id uuid default null::uuid,
                                                     p_stage text default null::text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_cache is null or p_cache not in ('llm', 'tts') then
    raise exception 'unknown cache %', coalesce(p_cache, 'null') using errcode = '22023';
  end if;
  if p_hit is null then
    raise exception 'a cache lookup is a hit or a miss' using errcode = '22023';
  end if;
  perform mdame.log_event(p_run_id, p_unit_id, p_stage, 'cache_lookup',
                          jsonb_build_object('cache', p_cache, 'dimension_id', p_dimension_id, 'hit', p_hit));
end;
$$;

revoke all on function mdame.record_cache_lookup(text,text,boolean,uuid,uuid,text) from public, anon, authenticated;
grant execute on function mdame.record_cache_lookup(text,text,boolean,uuid,uuid,text) to mdame_engine;
grant execute on function mdame.record_cache_lookup(text,text,boolean,uuid,uuid,text) to service_role;

-- Wakes the stage runner when a pending weekly report is due (queued, its retry backoff over, or
-- its builder's lease run out): the minutely tick wakes the runner only for stage tasks, so pg_cron
-- calls this every five minutes, and queue_weekly_reports after queueing. Returns whether it woke.

create or replace function mdame.wake_due_weekly_reports()
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  if exists (select 1 from mdame.weekly_reports where status = 'pending' and next_attempt_at <= mdame.engine_now()) then
    perform mdame.wake_stage_runner('report');
    return true;
  end if;
  return false;
end;
$$;

revoke all on function mdame.wake_due_weekly_reports() from public, anon, authenticated;
grant execute on function mdame.wake_due_weekly_reports() to mdame_engine;
grant execute on function mdame.wake_due_weekly_reports() to service_role;

-- Queues the weekly report of every active dimension: one pending row per dimension and week, so a
-- second call for the same week adds nothing. The week is the last one whose Sunday has begun in the
-- dimension's time zone at p_at (the engine's clock by default): pg_cron calls this on Sunday at
-- 21:00 UTC, which is still Sunday up to UTC+2 and already Monday from UTC+3 on, and both select the
-- week that is ending or has just ended. Wakes the stage runner when a report is due to be built.
-- Returns how many rows it added.

create or replace function mdame.queue_weekly_reports(p_at timestamp with time zone default null::timestamp with time zone)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
  v_at timestamptz := coalesce(p_at, v_now);
  v_added integer;
begin
  insert into mdame.weekly_reports (dimension_id, week_start, next_attempt_at, created_at, updated_at)
  select d.id,
         date_trunc('week', (v_at at time zone coalesce(nullif(d.publishing->>'time_zone', ''), 'UTC'))::date - 1)::date,
         v_now, v_now, v_now
    from mdame.dimensions d
   where d.active
  on conflict (dimension_id, week_start) do nothing;
  get diagnostics v_added = row_count;
  perform mdame.wake_due_weekly_reports();
  return v_added;
end;
$$;

revoke all on function mdame.queue_weekly_reports(timestamp with time zone) from public, anon, authenticated;
grant execute on function mdame.queue_weekly_reports(timestamp with time zone) to mdame_engine;
grant execute on function mdame.queue_weekly_reports(timestamp with time zone) to service_role;

-- Takes up to p_limit pending weekly reports that are due, for p_lease_s seconds: each claim counts
-- an attempt and moves the row's next attempt past the lease, so a builder that dies leaves the row
-- to the next tick once the lease has run out. A row that has used its attempts (5) without being
-- completed or failed by its builder is marked failed instead of claimed again.

create or replace function mdame.claim_weekly_reports(p_holder text, p_limit integer default 5, p_lease_s integer default 300)
returns setof mdame.weekly_reports
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
begin
  if p_holder is null or btrim(p_holder) = '' then
    raise exception 'a holder is required' using errcode = '22023';
  end if;
  update mdame.weekly_reports w
     set status = 'failed', lease_holder = null, updated_at = v_now,
         last_error = coalesce(w.last_error, 'the builder stopped before finishing') || ' (gave up after ' || w.attempts || ' attempts)'
   where w.status = 'pending' and w.next_attempt_at <= v_now and w.attempts >= 5;
  return query
  with due as (
    select w.id from mdame.weekly_reports w
     where w.status = 'pending' and w.next_attempt_at <= v_now and w.attempts < 5
     order by w.next_attempt_at, w.id
     limit greatest(p_limit, 0)
     for update skip locked
  )
  update mdame.weekly_reports w
     set attempts = w.attempts + 1, lease_holder = p_holder,
         next_attempt_at = v_now + make_interval(secs => greatest(p_lease_s, 1)), updated_at = v_now
    from due
   where w.id = due.id
  returning w.*;
end;
$$;

revoke all on function mdame.claim_weekly_reports(text,integer,integer) from public, anon, authenticated;
grant execute on function mdame.claim_weekly_reports(text,integer,integer) to mdame_engine;
grant execute on function mdame.claim_weekly_reports(text,integer,integer) to service_role;

-- Marks a claimed weekly report ready with its JSON, Markdown and chart key, and raises its alert
-- ('weekly_report', dedupe key weekly_report:<dimension>:<week start>, the Markdown as its text, the
-- chart as its photo) in the same transaction: the operator hears of a report exactly when it is
-- stored. A caller that no longer holds the row (its lease ran out and another builder took it), or
-- a row already ready or failed, gets the row back unchanged.

create or replace function mdame.complete_weekly_report(p_id uuid, p_holder text, p_report jsonb, p_markdown text,
                                                        p_chart_key text, p_details jsonb default '{}'::jsonb)
returns mdame.weekly_reports
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.weekly_reports;
  v_now timestamptz := mdame.engine_now();
  v_alert uuid;
begin
  select * into v_row from mdame.weekly_reports where id = p_id for update;
  if not found then
    raise exception 'no weekly report %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.lease_holder is distinct from p_holder then
    return v_row;
  end if;
  if p_report is null or jsonb_typeof(p_report) <> 'object' or p_markdown is null or btrim(p_markdown) = ''
     or p_chart_key is null or btrim(p_chart_key) = '' then
    raise exception 'a ready report needs its JSON, Markdown and chart key' using errcode = '22023';
  end if;
  v_alert := mdame.raise_alert('weekly_report', v_row.dimension_id,
                               'weekly_report:' || v_row.dimension_id || ':' || v_row.week_start,
                               p_markdown,
                               coalesce(p_details, '{}'::jsonb) || jsonb_build_object('report_id', v_row.id, 'week_start', v_row.week_start),
                               p_chart_key);
  update mdame.weekly_reports
     set status = 'ready', report = p_report, markdown = p_markdown, chart_key = p_chart_key, alert_id = v_alert,
         lease_holder = null, last_error = null, ready_at = v_now, updated_at = v_now
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.complete_weekly_report(uuid,text,jsonb,text,text,jsonb) from public, anon, authenticated;
grant execute on function mdame.complete_weekly_report(uuid,text,jsonb,text,text,jsonb) to mdame_engine;
grant execute on function mdame.complete_weekly_report(uuid,text,jsonb,text,text,jsonb) to service_role;

-- Records a failed attempt at building a weekly report: tried again after a backoff (1, 2, 4, 8
-- minutes), failed for good after its fifth attempt. A caller that no longer holds the row, or a row
-- already ready or failed, gets the row back unchanged.

create or replace function mdame.fail_weekly_report(p_id uuid, p_holder text, p_error text)
returns mdame.weekly_reports
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.weekly_reports;
  v_now timestamptz := mdame.engine_now();
begin
  select * into v_row from mdame.weekly_reports where id = p_id for update;
  if not found then
    raise exception 'no weekly report %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.lease_holder is distinct from p_holder then
    return v_row;
  end if;
  update mdame.weekly_reports
     set status = case when attempts >= 5 then 'failed' else 'pending' end,
         next_attempt_at = v_now + make_interval(secs => 60 * power(2, greatest(attempts - 1, 0))::integer),
         lease_holder = null,
         last_error = left(coalesce(p_error, 'unknown error'), 2000),
         updated_at = v_now
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.fail_weekly_report(uuid,text,text) from public, anon, authenticated;
grant execute on function mdame.fail_weekly_report(uuid,text,text) to mdame_engine;
grant execute on function mdame.fail_weekly_report(uuid,text,text) to service_role;

do $$
begin
  if not exists (select 1 from cron.job where jobname = 'mdame-weekly-reports') then
    perform cron.schedule('mdame-weekly-reports', '0 21 * * 0', 'select mdame.queue_weekly_reports()');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-weekly-reports-retry') then
    perform cron.schedule('mdame-weekly-reports-retry', '*/5 * * * *', 'select mdame.wake_due_weekly_reports()');
  end if;
end
$$;

select mdame.restrict_function_privileges();
