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
           when 'mdame-housekeeping' then 'mdame.housekeeping(false)'
           when 'mdame-storage-deletions' then 'mdame.wake_due_storage_deletions()'
         end;
$$;

comment on function mdame.engine_job_function(text) is 'internal: the run-now whitelist of ops_schedules and run_engine_job';

revoke all on function mdame.engine_job_function(text) from public, anon, authenticated;
