-- The retention settings in effect (docs/reference/retention.md): each one's value, stored in mdame.settings
-- under housekeeping.<name> when the operator set it, its safe default otherwise, and the range
-- mdame.set_housekeeping_setting accepts.

create or replace function mdame.housekeeping_settings()
returns table(name text, value integer, default_value integer, min_value integer, max_value integer)
language sql
stable security definer
set search_path = ''
as $$
  select d.name, coalesce(s.value::integer, d.default_value), d.default_value, d.min_value, d.max_value
    from (values
      (1, 'scene_cache_ttl_days', 30, 1, 3650),
      (2, 'render_retention_days', 14, 1, 3650),
      (3, 'voice_retention_days', 14, 1, 3650),
      (4, 'llm_cache_days', 30, 1, 3650),
      (5, 'events_days', 90, 1, 3650),
      (6, 'step_results_days', 90, 1, 3650),
      (7, 'pgmq_archive_days', 14, 1, 3650),
      -- At least 35 days: a month's budget reads its whole month.
      (8, 'spend_days', 400, 35, 3650),
      (9, 'batch_size', 500, 1, 10000)
    ) d(ord, name, default_value, min_value, max_value)
    left join mdame.settings s on s.key = 'housekeeping.' || d.name
   order by d.ord;
$$;
