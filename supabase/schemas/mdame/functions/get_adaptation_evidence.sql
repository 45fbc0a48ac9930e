-- The evidence of the adaptive engine: each published video of a dimension made since p_since, with
-- the parameters it was made with (the run's configuration and the unit's own, topic->'adapt') and,
-- one row per platform it was published on, that platform's latest figures (day 7 when fetched, else
-- day 3). views is the platform's view figure the decisions weigh: engaged views where the platform
-- reports them (YouTube), else views (TikTok, Instagram, Facebook); retention is YouTube's average
-- view percentage, null elsewhere. A publication without figures yet is left out. A video the
-- operator rejected in review (mdame.unit_reviews, decided by the operator: an expiry judges
-- nothing) is evidence too: no audience would see it, so it counts as watched by nobody on each
-- platform the dimension publishes to (window_days 0, views 0, retention 0 on YouTube), and the
-- sources, categories, hook threshold and length it was made with answer for it
-- (docs/guides/review.md).

create or replace function mdame.get_adaptation_evidence(p_dimension_id text, p_since timestamp with time zone)
returns table (
  unit_id uuid,
  made_at timestamp with time zone,
  run_date date,
  platform text,
  window_days integer,
  retention double precision,
  views bigint,
  hook_score double precision,
  hook_threshold double precision,
  source text,
  categories jsonb,
  unit_params jsonb,
  daily_volume integer,
  day_units integer
)
language sql
stable security definer
set search_path = ''
as $$
  select u.id, u.created_at, r.run_date, e.platform, e.window_days, e.retention, e.views,
         (u.script->>'hook_score')::double precision,
         coalesce((rd.config->'adapt'->'hook_threshold'->>'value')::double precision, 0.72),
         u.topic->>'source',
         coalesce(u.topic->'categories', '[]'::jsonb),
         coalesce(u.topic->'adapt', '{}'::jsonb),
         coalesce((rd.config->>'daily_limit')::integer, 0),
         (select count(*)::integer from mdame.work_units u2 join mdame.pipeline_runs r2 on r2.id = u2.run_id
           where u2.dimension_id = u.dimension_id and r2.run_date = r.run_date)
    from (
      select p.unit_id, p.platform, va.window_days, va.average_view_percentage::double precision as retention,
             coalesce(va.engaged_views, va.views) as views
        from mdame.work_units w
        join mdame.publications p on p.unit_id = w.id
        join lateral (
          select v.window_days, v.average_view_percentage, v.engaged_views, v.views
            from mdame.video_analytics v
           where v.publication_id = p.id
           order by v.window_days desc, v.fetched_at desc
           limit 1) va on true
       where w.dimension_id = p_dimension_id and w.created_at >= p_since
      union all
      select w.id, a.platform, 0, case when a.platform = 'youtube' then 0::double precision end, 0::bigint
        from mdame.work_units w
        join mdame.unit_reviews rv on rv.unit_id = w.id and rv.decision = 'rejected' and rv.decided_by = 'operator'
        join (select distinct d.platform from mdame.dimension_accounts d where d.dimension_id = p_dimension_id and d.active) a on true
       where w.dimension_id = p_dimension_id and w.created_at >= p_since
    ) e
    join mdame.work_units u on u.id = e.unit_id
    join mdame.pipeline_runs r on r.id = u.run_id
    left join mdame.run_dimensions rd on rd.run_id = u.run_id and rd.dimension_id = u.dimension_id
   order by u.created_at, u.id, e.platform;
$$;
