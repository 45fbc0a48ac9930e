-- The evidence of the adaptive engine: each published video of a dimension made since p_since, with
-- the parameters it was made with (the run's configuration and the unit's own, topic->'adapt') and
-- its latest YouTube Analytics figures (day 7 when fetched, else day 3). Videos without YouTube
-- figures yet are left out: the decisions weigh retention and engaged views, which only YouTube
-- reports (a TikTok post's counts go to the reports, not here). A video the operator rejected in
-- review (mdame.unit_reviews, decided by the operator: an expiry judges nothing) is evidence too:
-- no audience would see it, so it counts as watched by nobody (window_days 0, retention 0, no
-- engaged view), and the sources, categories, hook threshold and length it was made with answer
-- for it (docs/guides/review.md).

create or replace function mdame.get_adaptation_evidence(p_dimension_id text, p_since timestamp with time zone)
returns table (
  unit_id uuid,
  made_at timestamp with time zone,
  run_date date,
  window_days integer,
  retention double precision,
  engaged_views bigint,
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
  select u.id, u.created_at, r.run_date, coalesce(va.window_days, 0),
         coalesce(va.average_view_percentage::double precision, 0), coalesce(va.engaged_views, 0),
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
    left join lateral (
      select v.window_days, v.average_view_percentage, v.engaged_views
        from mdame.publications p join mdame.video_analytics v on v.publication_id = p.id
       where p.unit_id = u.id and v.platform = 'youtube'
       order by v.window_days desc, v.fetched_at desc
       limit 1) va on true
   where u.dimension_id = p_dimension_id and u.created_at >= p_since
     and (va.window_days is not null
          or exists (select 1 from mdame.unit_reviews rv where rv.unit_id = u.id and rv.decision = 'rejected' and rv.decided_by = 'operator'))
   order by u.created_at, u.id;
$$;
