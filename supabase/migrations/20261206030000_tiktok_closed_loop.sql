-- tiktok closed loop: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

drop function if exists "mdame"."claim_analytics_fetches"(p_qty integer, p_vt_s integer);

drop function if exists "mdame"."get_run_analytics"(p_run_id uuid);

alter table "mdame"."video_analytics" add column "comments" bigint;

-- Every row so far is a YouTube Analytics row: the column takes that for them, then has no default
-- (a trigger copies each new row's platform from its publication).
alter table "mdame"."video_analytics" add column "platform" text not null default 'youtube';
alter table "mdame"."video_analytics" alter column "platform" drop default;

alter table "mdame"."video_analytics" add column "shares" bigint;

alter table "mdame"."video_analytics" alter column "average_view_duration_s" drop not null;

alter table "mdame"."video_analytics" alter column "average_view_percentage" drop not null;

alter table "mdame"."video_analytics" alter column "engaged_views" drop not null;

alter table "mdame"."video_analytics" alter column "retention" drop not null;

alter table "mdame"."video_analytics" add constraint "video_analytics_engagement_check" CHECK (((comments >= 0) AND (shares >= 0))) not valid;

alter table "mdame"."video_analytics" validate constraint "video_analytics_engagement_check";

alter table "mdame"."video_analytics" add constraint "video_analytics_youtube_figures_check" CHECK (((platform <> 'youtube'::text) OR ((engaged_views IS NOT NULL) AND (average_view_duration_s IS NOT NULL) AND (average_view_percentage IS NOT NULL) AND (retention IS NOT NULL)))) not valid;

alter table "mdame"."video_analytics" validate constraint "video_analytics_youtube_figures_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.assert_analytics_window(p_window_days integer, p_period_start date, p_period_end date)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO ''
AS $function$
begin
  if p_window_days is null or p_window_days not in (3, 7) then
    raise exception 'the window is 3 or 7 days, not %', coalesce(p_window_days::text, '(none)') using errcode = '22023';
  end if;
  if p_period_start is null or p_period_end is null or p_period_end < p_period_start then
    raise exception 'the period must have a start and an end not before it' using errcode = '22023';
  end if;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.close_analytics_fetch(p_publication mdame.publications, p_window_days integer, p_msg_id bigint, p_figures jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_unit mdame.work_units;
begin
  update mdame.analytics_fetches
     set status = 'fetched', finished_at = mdame.engine_now(), last_error = null
   where publication_id = p_publication.id and window_days = p_window_days;
  if p_msg_id is not null then
    perform pgmq.archive('analytics_fetches', p_msg_id);
  end if;
  select * into v_unit from mdame.work_units where id = p_publication.unit_id;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'analytics', 'analytics_fetched', jsonb_build_object(
    'publication_id', p_publication.id, 'platform', p_publication.platform, 'external_id', p_publication.external_id,
    'window_days', p_window_days) || p_figures);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_tiktok_video_analytics(p_publication_id uuid, p_window_days integer, p_period_start date, p_period_end date, p_views bigint, p_likes bigint, p_comments bigint, p_shares bigint, p_msg_id bigint DEFAULT NULL::bigint)
 RETURNS mdame.video_analytics
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_publication mdame.publications;
  v_row mdame.video_analytics;
begin
  perform mdame.assert_analytics_window(p_window_days, p_period_start, p_period_end);
  if p_views is null or p_likes is null or p_comments is null or p_shares is null
     or least(p_views, p_likes, p_comments, p_shares) < 0 then
    raise exception 'views, likes, comments and shares must be given and not negative' using errcode = '22023';
  end if;
  select * into v_publication from mdame.publications where id = p_publication_id;
  if not found or v_publication.platform <> 'tiktok' then
    raise exception 'no TikTok publication %', p_publication_id using errcode = 'MDN01';
  end if;

  insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, likes, comments, shares)
  values (p_publication_id, p_window_days, mdame.engine_now(), p_period_start, p_period_end, p_views, p_likes, p_comments, p_shares)
  on conflict (publication_id, window_days) do update
    set fetched_at = excluded.fetched_at, period_start = excluded.period_start, period_end = excluded.period_end,
        views = excluded.views, likes = excluded.likes, comments = excluded.comments, shares = excluded.shares
  returning * into v_row;
  perform mdame.close_analytics_fetch(v_publication, p_window_days, p_msg_id, jsonb_build_object(
    'views', p_views, 'likes', p_likes, 'comments', p_comments, 'shares', p_shares));
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.video_analytics_platform()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  select p.platform into new.platform from mdame.publications p where p.id = new.publication_id;
  return new;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.claim_analytics_fetches(p_qty integer, p_vt_s integer)
 RETURNS TABLE(msg_id bigint, read_ct integer, publication_id uuid, platform text, window_days integer, attempts integer, external_id text, published_at timestamp with time zone, unit_id uuid, run_id uuid, account_id uuid, dimension_id text, channel_handle text, oauth_client_id text, credentials_enc text, account_ready boolean, engine_now timestamp with time zone)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  v_msg record;
  v_fetch mdame.analytics_fetches;
begin
  if p_qty is null or p_qty < 1 or p_qty > 100 or p_vt_s is null or p_vt_s < 1 or p_vt_s > 3600 then
    raise exception 'claim 1..100 fetches for 1..3600 seconds (asked % for %)', p_qty, p_vt_s using errcode = '22023';
  end if;
  for v_msg in select m.msg_id, m.read_ct, m.message from pgmq.read('analytics_fetches', p_vt_s, p_qty) m order by m.msg_id
  loop
    v_fetch := null;
    begin
      select * into v_fetch from mdame.analytics_fetches f
       where f.publication_id = (v_msg.message->>'publication_id')::uuid and f.window_days = (v_msg.message->>'window_days')::integer
       for update;
    exception when invalid_text_representation then
      v_fetch := null;
    end;
    if v_fetch.publication_id is null or v_fetch.status <> 'queued' then
      perform pgmq.archive('analytics_fetches', v_msg.msg_id);
      continue;
    end if;
    update mdame.analytics_fetches f set attempts = f.attempts + 1, msg_id = v_msg.msg_id
     where f.publication_id = v_fetch.publication_id and f.window_days = v_fetch.window_days;
    return query
      select v_msg.msg_id, v_msg.read_ct, p.id, p.platform, v_fetch.window_days, v_fetch.attempts + 1, p.external_id, p.published_at,
             u.id, u.run_id, a.id, a.dimension_id, a.channel_handle, a.oauth_client_id, a.credentials_enc,
             a.active and a.health_state = 'ok' and a.credentials_enc is not null, mdame.engine_now()
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       where p.id = v_fetch.publication_id;
  end loop;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.get_adaptation_evidence(p_dimension_id text, p_since timestamp with time zone)
 RETURNS TABLE(unit_id uuid, made_at timestamp with time zone, run_date date, window_days integer, retention double precision, engaged_views bigint, hook_score double precision, hook_threshold double precision, source text, categories jsonb, unit_params jsonb, daily_volume integer, day_units integer)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select u.id, u.created_at, r.run_date, va.window_days,
         va.average_view_percentage::double precision, va.engaged_views,
         (u.script->>'hook_score')::double precision,
         coalesce((rd.config->'adapt'->'hook_threshold'->>'value')::double precision, 0.72),
         u.topic->>'source',
         coalesce(u.topic->'categories', '[]'::jsonb),
         coalesce(u.topic->'adapt', '{}'::jsonb),
         coalesce((rd.config->>'daily_limit')::integer, 0),
         (select count(*)::integer from mdame.work_units u2 join mdame.pipeline_runs r2 on r2.id = u2.run_id
           where u2.dimension_id = u.dimension_id and r2.run_date = r.run_date)
    from mdame.work_units u
    join mdame.pipeline_runs r on r.id = u.run_id
    left join mdame.run_dimensions rd on rd.run_id = u.run_id and rd.dimension_id = u.dimension_id
    join lateral (
      select v.window_days, v.average_view_percentage, v.engaged_views
        from mdame.publications p join mdame.video_analytics v on v.publication_id = p.id
       where p.unit_id = u.id and v.platform = 'youtube'
       order by v.window_days desc, v.fetched_at desc
       limit 1) va on true
   where u.dimension_id = p_dimension_id and u.created_at >= p_since
   order by u.created_at, u.id;
$function$
;

CREATE OR REPLACE FUNCTION mdame.get_run_analytics(p_run_id uuid)
 RETURNS TABLE(unit_id uuid, publication_id uuid, platform text, external_id text, channel_handle text, window_days integer, views bigint, engaged_views bigint, average_view_percentage numeric, average_view_duration_s numeric, likes bigint, comments bigint, shares bigint, fetched_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not exists (select 1 from mdame.pipeline_runs r where r.id = p_run_id) then
    raise exception 'no run %', p_run_id using errcode = 'MDN01';
  end if;
  return query
    select u.id, p.id, p.platform, p.external_id, a.channel_handle, v.window_days, v.views, v.engaged_views, v.average_view_percentage,
           v.average_view_duration_s, v.likes, v.comments, v.shares, v.fetched_at
      from mdame.work_units u
      join mdame.publications p on p.unit_id = u.id
      join mdame.dimension_accounts a on a.id = p.account_id
      join mdame.video_analytics v on v.publication_id = p.id
     where u.run_id = p_run_id
     order by u.created_at, u.id, p.id, v.window_days;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.ops_video(p_publication_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
                           'likes', va.likes, 'comments', va.comments, 'shares', va.shares,
                           'retention', coalesce(va.retention, '[]'::jsonb)) order by va.window_days), '[]'::jsonb)
                           from mdame.video_analytics va where va.publication_id = p.id))
    from mdame.publications p
    join mdame.work_units u on u.id = p.unit_id
    join mdame.dimension_accounts a on a.id = p.account_id
   where p.id = p_publication_id;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_video_analytics(p_publication_id uuid, p_window_days integer, p_period_start date, p_period_end date, p_views bigint, p_engaged_views bigint, p_average_view_duration_s numeric, p_average_view_percentage numeric, p_likes bigint, p_retention jsonb, p_msg_id bigint DEFAULT NULL::bigint)
 RETURNS mdame.video_analytics
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_publication mdame.publications;
  v_row mdame.video_analytics;
  v_now timestamptz := mdame.engine_now();
  v_bad text;
begin
  perform mdame.assert_analytics_window(p_window_days, p_period_start, p_period_end);
  if p_views is null or p_engaged_views is null or p_likes is null or p_average_view_duration_s is null or p_average_view_percentage is null
     or p_views < 0 or p_engaged_views < 0 or p_likes < 0 or p_average_view_duration_s < 0 or p_average_view_percentage < 0 then
    raise exception 'views, engaged views, likes and the averages must be given and not negative' using errcode = '22023';
  end if;
  if p_engaged_views > p_views then
    raise exception 'engaged views (%) cannot exceed views (%)', p_engaged_views, p_views using errcode = '22023';
  end if;
  if p_retention is null or jsonb_typeof(p_retention) <> 'array' or jsonb_array_length(p_retention) > 100 then
    raise exception 'the retention curve must be an array of at most 100 points' using errcode = '22023';
  end if;
  select format('point %s', e.i) into v_bad
    from jsonb_array_elements(p_retention) with ordinality as e(p, i)
   where jsonb_typeof(e.p) <> 'object'
      or (select count(*) from jsonb_object_keys(e.p)) <> 2
      or jsonb_typeof(e.p->'ratio') is distinct from 'number' or jsonb_typeof(e.p->'watch_ratio') is distinct from 'number'
      or (e.p->>'ratio')::numeric <= 0 or (e.p->>'ratio')::numeric > 1 or (e.p->>'watch_ratio')::numeric < 0
      or (e.i > 1 and (e.p->>'ratio')::numeric <= (p_retention->(e.i::integer - 2)->>'ratio')::numeric)
   order by e.i
   limit 1;
  if v_bad is not null then
    raise exception 'the retention curve''s % is not {ratio in (0,1], watch_ratio >= 0} after the point before it', v_bad using errcode = '22023';
  end if;

  select * into v_publication from mdame.publications where id = p_publication_id;
  if not found or v_publication.platform <> 'youtube' then
    raise exception 'no YouTube publication %', p_publication_id using errcode = 'MDN01';
  end if;

  insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                     average_view_duration_s, average_view_percentage, likes, retention)
  values (p_publication_id, p_window_days, v_now, p_period_start, p_period_end, p_views, p_engaged_views,
          p_average_view_duration_s, p_average_view_percentage, p_likes, p_retention)
  on conflict (publication_id, window_days) do update
    set fetched_at = excluded.fetched_at, period_start = excluded.period_start, period_end = excluded.period_end,
        views = excluded.views, engaged_views = excluded.engaged_views, average_view_duration_s = excluded.average_view_duration_s,
        average_view_percentage = excluded.average_view_percentage, likes = excluded.likes, retention = excluded.retention
  returning * into v_row;

  perform mdame.close_analytics_fetch(v_publication, p_window_days, p_msg_id, jsonb_build_object(
    'views', p_views, 'engaged_views', p_engaged_views, 'average_view_percentage', p_average_view_percentage));
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.schedule_analytics_fetches()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_now timestamptz := mdame.engine_now();
  v_due record;
  v_msg_id bigint;
  v_count integer := 0;
begin
  for v_due in
    select p.id as publication_id, w.days as window_days, p.published_at + make_interval(days => w.days) as due_at
      from mdame.publications p
      join mdame.dimension_accounts a on a.id = p.account_id
     cross join (values (3), (7)) as w(days)
     where (p.platform = 'youtube' or (p.platform = 'tiktok' and p.external_id ~ '^[0-9]+$'))
       and p.status = 'published' and p.external_id is not null and p.published_at is not null
       and a.active and a.health_state = 'ok'
       and p.published_at + make_interval(days => w.days) <= v_now
       and not exists (select 1 from mdame.analytics_fetches f where f.publication_id = p.id and f.window_days = w.days)
       and not exists (select 1 from mdame.video_analytics v where v.publication_id = p.id and v.window_days = w.days)
     order by 3, 1, 2
  loop
    insert into mdame.analytics_fetches (publication_id, window_days, due_at, enqueued_at)
    values (v_due.publication_id, v_due.window_days, v_due.due_at, v_now)
    on conflict do nothing;
    if not found then
      continue;
    end if;
    select s into v_msg_id from pgmq.send('analytics_fetches',
      jsonb_build_object('publication_id', v_due.publication_id, 'window_days', v_due.window_days)) as s;
    update mdame.analytics_fetches set msg_id = v_msg_id
     where publication_id = v_due.publication_id and window_days = v_due.window_days;
    v_count := v_count + 1;
  end loop;
  if v_count > 0 then
    perform mdame.wake_stage_runner('analytics');
  end if;
  return v_count;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.weekly_report(p_dimension_id text, p_week_start date)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
    select distinct on (va.publication_id) va.*, p.external_id, a.channel_handle, u.script->>'title' as title
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
             'likes', l.likes,
             'comments', l.comments,
             'shares', l.shares) as video,
           l.platform, l.engaged_views, l.views, l.likes, l.comments, l.shares, l.average_view_percentage, l.publication_id
      from latest l
     where l.fetched_at >= v_from
  )
  select jsonb_build_object(
           'count', (select count(*) from week),
           'best_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views desc, w.views desc, w.publication_id limit 1),
           'worst_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views, w.views, w.publication_id limit 1),
           'best_retention', (select w.video from week w where w.average_view_percentage is not null
                               order by w.average_view_percentage desc, w.views desc, w.publication_id limit 1),
           'worst_retention', (select w.video from week w where w.average_view_percentage is not null
                                order by w.average_view_percentage, w.views, w.publication_id limit 1),
           'by_platform', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'platform', g.platform, 'videos', g.n, 'views', g.views, 'likes', g.likes,
                      'engaged_views', g.engaged_views, 'average_view_percentage', g.mean_view_percentage,
                      'comments', g.comments, 'shares', g.shares,
                      'most_viewed', (select w.video from week w where w.platform = g.platform order by w.views desc, w.publication_id limit 1),
                      'least_viewed', (select w.video from week w where w.platform = g.platform order by w.views, w.publication_id limit 1))
                    order by g.platform)
               from (select w.platform, count(*) as n, sum(w.views) as views, sum(w.likes) as likes,
                            sum(w.engaged_views) as engaged_views, round(avg(w.average_view_percentage), 2) as mean_view_percentage,
                            sum(w.comments) as comments, sum(w.shares) as shares
                       from week w group by w.platform) g), '[]'::jsonb))
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
$function$
;

CREATE TRIGGER video_analytics_platform BEFORE INSERT OR UPDATE OF publication_id ON mdame.video_analytics FOR EACH ROW EXECUTE FUNCTION mdame.video_analytics_platform();

comment on function mdame.assert_analytics_window(integer,date,date) is 'internal: the window and period check of the two recording RPCs';
comment on function mdame.close_analytics_fetch(mdame.publications,integer,bigint,jsonb) is 'internal: marks a window fetched, archives its message and logs it, for the two recording RPCs';
comment on function mdame.video_analytics_platform() is 'internal: trigger copying a video_analytics row''s platform from its publication';
comment on table mdame.video_analytics is 'A published video''s figures at about day 3 and day 7: YouTube Analytics (views, engagedViews, averageViewDuration, averageViewPercentage, likes, the audienceWatchRatio curve) or TikTok video/query (views, likes, comments, shares).';

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb;
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_tiktok_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb);
insert into mdame.tiktok_rate_limits ("calls", "call_kind", "per_seconds") select "calls", "call_kind", "per_seconds" from jsonb_populate_record(null::mdame.tiktok_rate_limits, '{"calls": 600, "call_kind": "video.query", "per_seconds": 60}'::jsonb);

select mdame.restrict_function_privileges();
