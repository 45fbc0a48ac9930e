-- adaptation evidence per platform: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

drop function if exists "mdame"."get_adaptation_evidence"(p_dimension_id text, p_since timestamp with time zone);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.get_adaptation_evidence(p_dimension_id text, p_since timestamp with time zone)
 RETURNS TABLE(unit_id uuid, made_at timestamp with time zone, run_date date, platform text, window_days integer, retention double precision, views bigint, hook_score double precision, hook_threshold double precision, source text, categories jsonb, unit_params jsonb, daily_volume integer, day_units integer)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select u.id, u.created_at, r.run_date, p.platform, va.window_days,
         va.average_view_percentage::double precision, coalesce(va.engaged_views, va.views),
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
    join mdame.publications p on p.unit_id = u.id
    join lateral (
      select v.window_days, v.average_view_percentage, v.engaged_views, v.views
        from mdame.video_analytics v
       where v.publication_id = p.id
       order by v.window_days desc, v.fetched_at desc
       limit 1) va on true
   where u.dimension_id = p_dimension_id and u.created_at >= p_since
   order by u.created_at, u.id, p.platform;
$function$
;

select mdame.restrict_function_privileges();
