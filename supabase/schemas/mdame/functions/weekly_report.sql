-- The figures of one dimension's week, as JSON (shared/contracts/weekly-report.ts): the week runs
-- Monday 00:00 to the next Monday 00:00 in the dimension's publishing time zone (publishing.time_zone,
-- UTC when unset); any date of the week selects it. A unit counts in the week in which it reached
-- its end (the stage_entered event of published, rejected or failed); a failure is counted at the
-- stage the unit was in before it failed. Stage latency is the time between a unit entering a stage
-- and entering the next one, for transitions inside the week. Cache rates: scenes from
-- scenes.cache_hit, LLM and TTS from the cache_lookup events (mdame.record_cache_lookup). Quota: the
-- YouTube ledger's calls that were not released, by bucket, and TikTok's calls, by kind. Videos:
-- those whose latest analytics window was fetched during the week, ranked by engaged views and by
-- average view percentage (YouTube's figures: a TikTok post has neither, and ranks by its views
-- after them), with each platform's totals (videos, views, likes, and YouTube's engaged views and
-- mean view percentage or TikTok's comments and shares) and its most and least viewed video.
-- Similarity: the channel-standing guard's checks of the week (similarity_checked events), by action,
-- with the median and highest combined score to the closest earlier video.
-- Spend: the week's recorded provider calls (mdame.provider_usage) by provider, and that spend over
-- the videos published in the week (null when none was), and each day's spend (the dimension's days).
-- Reviews: the decisions made during the week (mdame.unit_reviews), approved and rejected, by the
-- operator or by expiry, with the rejections' reasons (docs/guides/review.md).

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
  v_similarity jsonb;
  v_spend jsonb;
  v_reviews jsonb;
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
                                    order by array_position(array['script', 'safety', 'plan', 'media', 'render', 'awaiting_review', 'publish', 'deferred'], l.stage), l.stage), '[]'::jsonb)
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
             'url', mdame.external_url(l.platform, l.external_id, l.channel_handle),
             'window_days', l.window_days,
             'views', l.views,
             'engaged_views', l.engaged_views,
             'average_view_duration_s', l.average_view_duration_s,
             'average_view_percentage', l.average_view_percentage,
             'likes', l.likes,
             'comments', l.comments,
             'shares', l.shares) as video,
           l.platform, l.engaged_views, l.views, l.likes, l.comments, l.shares, l.average_view_percentage, l.publication_id,
           l.retention, coalesce(l.title, '(untitled)') as title
      from latest l
     where l.fetched_at >= v_from
  ), retention_ranked as (
    select w.video, w.retention,
           row_number() over (order by w.average_view_percentage desc, w.views desc, w.publication_id) as best_rank,
           row_number() over (order by w.average_view_percentage, w.views, w.publication_id) as worst_rank
      from week w
     where w.average_view_percentage is not null
  )
  select jsonb_build_object(
           'count', (select count(*) from week),
           'best_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views desc, w.views desc, w.publication_id limit 1),
           'worst_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views, w.views, w.publication_id limit 1),
           'best_retention', (select r.video from retention_ranked r where r.best_rank = 1),
           'worst_retention', (select r.video from retention_ranked r where r.worst_rank = 1),
           'retention_curves', jsonb_build_object(
             'best', (select r.retention from retention_ranked r where r.best_rank = 1),
             'worst', (select r.retention from retention_ranked r where r.worst_rank = 1)),
           -- The charts' views per video: the twenty most viewed.
           'each', coalesce((
             select jsonb_agg(jsonb_build_object('publication_id', t.publication_id, 'platform', t.platform, 'title', t.title,
                                                 'views', t.views, 'engaged_views', t.engaged_views) order by t.views desc, t.publication_id)
               from (select w.* from week w order by w.views desc, w.publication_id limit 20) t), '[]'::jsonb),
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

  select jsonb_build_object(
           'checks', count(*),
           'passed', count(*) filter (where e.detail->>'action' = 'passed'),
           'regenerated', count(*) filter (where e.detail->>'action' = 'regenerated'),
           'rejected', count(*) filter (where e.detail->>'action' = 'rejected'),
           'median_combined', round((percentile_cont(0.5) within group (order by (e.detail->>'combined')::double precision))::numeric, 4),
           'max_combined', max((e.detail->>'combined')::numeric))
    into v_similarity
    from mdame.events e join mdame.work_units u on u.id = e.unit_id
   where e.kind = 'similarity_checked' and u.dimension_id = p_dimension_id and e.created_at >= v_from and e.created_at < v_to;

  select jsonb_build_object(
           'usd', coalesce(round(sum(g.usd), 6), 0),
           'usd_per_published_video', case when (v_outcomes->>'published')::integer = 0 then null
                                           else round(coalesce(sum(g.usd), 0) / (v_outcomes->>'published')::integer, 6) end,
           'by_provider', coalesce(jsonb_agg(jsonb_build_object('provider', g.provider, 'usd', round(g.usd, 6), 'calls', g.calls,
                                                                'cached_calls', g.cached_calls) order by g.usd desc, g.provider)
                                   filter (where g.provider is not null), '[]'::jsonb))
    into v_spend
    from (select u.provider, sum(u.usd) as usd, count(distinct u.call_key) as calls,
                 count(distinct u.call_key) filter (where u.cached) as cached_calls
            from mdame.provider_usage u
           where u.dimension_id = p_dimension_id and u.recorded_at >= v_from and u.recorded_at < v_to
           group by u.provider) g;
  -- Each day's spend in the dimension's time zone, Monday first, for the spend chart.
  v_spend := v_spend || jsonb_build_object('daily', (
    select jsonb_agg(jsonb_build_object('date', d.day, 'usd', coalesce(round(s.usd, 6), 0)) order by d.day)
      from (select v_week + i as day from generate_series(0, 6) as i) d
      left join (select (u.recorded_at at time zone v_zone)::date as day, sum(u.usd) as usd
                   from mdame.provider_usage u
                  where u.dimension_id = p_dimension_id and u.recorded_at >= v_from and u.recorded_at < v_to
                  group by 1) s on s.day = d.day));

  select jsonb_build_object(
           'approved', count(*) filter (where r.decision = 'approved'),
           'rejected', count(*) filter (where r.decision = 'rejected'),
           'expired', count(*) filter (where r.decided_by = 'expiry'),
           'rejections', coalesce((
             select jsonb_agg(jsonb_build_object('reason', x.reason, 'count', x.n) order by x.n desc, x.reason)
               from (select left(r2.reason, 120) as reason, count(*) as n from mdame.unit_reviews r2
                      where r2.dimension_id = p_dimension_id and r2.decision = 'rejected' and r2.decided_at >= v_from and r2.decided_at < v_to
                      group by 1) x), '[]'::jsonb))
    into v_reviews
    from mdame.unit_reviews r
   where r.dimension_id = p_dimension_id and r.decision is not null and r.decided_at >= v_from and r.decided_at < v_to;

  return jsonb_build_object(
    'dimension_id', v_dimension.id,
    'display_name', v_dimension.display_name,
    'time_zone', v_zone,
    'week_start', v_week,
    'week_end', v_week + 6,
    'generated_at', mdame.engine_now(),
    'outcomes', v_outcomes,
    'topics_rejected', v_topics,
    'reviews', v_reviews,
    'daily', v_daily,
    'stage_latency', v_latency,
    'cache', v_cache,
    'quota', v_quota,
    'spend', v_spend,
    'videos', v_videos,
    'similarity', v_similarity);
end;
$$;
