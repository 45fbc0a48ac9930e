-- When a dimension's day's production starts, from its publishing settings (shared/contracts/publishing.ts
-- runStart): run_time in its time zone; else 240 minutes before publish_time there; else 06:00 UTC,
-- the old daily run.

create or replace function mdame.run_schedule(p_publishing jsonb)
returns table(time_zone text, start_time time without time zone)
language sql
immutable
set search_path = ''
as $$
  select case when p_publishing->>'run_time' is null and p_publishing->>'publish_time' is null then 'UTC'
              else p_publishing->>'time_zone' end,
         coalesce((p_publishing->>'run_time')::time, (p_publishing->>'publish_time')::time - interval '240 minutes', time '06:00');
$$;

comment on function mdame.run_schedule(jsonb) is 'internal: a dimension''s daily production start, read by trigger_due_runs';
