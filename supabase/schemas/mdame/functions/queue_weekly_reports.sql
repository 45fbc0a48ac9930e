-- Queues the weekly report of every active dimension: one pending row per dimension and week, so a
-- second call for the same week adds nothing. The week is the last one whose Sunday has begun in the
-- dimension's time zone at p_at (the engine's clock by default): pg_cron calls this on Sunday at
-- 21:00 UTC, which is still Sunday up to UTC+2 and already Monday from UTC+3 on, and both select the
-- week that is ending or has just ended. The render-runner claims the pending reports on its own
-- pass (render-runner/weekly-reports.ts), so nothing is woken. Returns how many rows it added.

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
  return v_added;
end;
$$;
