-- pg_cron: the minutely tick (recovery sweep; wakes the stage runner when work is visible), the
-- scheduled runs, checked every minute: each dimension starts its day's production at its own local
-- time (mdame.trigger_scheduled_run), and the minutely drain of deferred publications whose time has
-- come; hourly, the enqueue of due YouTube Analytics fetches (mdame.schedule_analytics_fetches).
-- Created only when absent, never by swallowing an error, so a rerun changes nothing.

do $$
begin
  if not exists (select 1 from cron.job where jobname = 'mdame-tick') then
    perform cron.schedule('mdame-tick', '* * * * *', 'select mdame.tick()');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-scheduled-runs') then
    perform cron.schedule('mdame-scheduled-runs', '* * * * *', 'select mdame.trigger_scheduled_run()');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-publish-drain') then
    perform cron.schedule('mdame-publish-drain', '* * * * *', 'select mdame.drain_deferred_publications()');
  end if;
  -- Alerts: stale deferrals raised, and the runner woken while an alert delivery is due (docs/reference/alerts.md).
  if not exists (select 1 from cron.job where jobname = 'mdame-alerts') then
    perform cron.schedule('mdame-alerts', '* * * * *', 'select mdame.check_alerts()');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-analytics-fetches') then
    perform cron.schedule('mdame-analytics-fetches', '0 * * * *', 'select mdame.schedule_analytics_fetches()');
  end if;
  -- The weekly reports: Sunday 21:00 UTC (pg_cron's zone), docs/reference/weekly-report.md.
  if not exists (select 1 from cron.job where jobname = 'mdame-weekly-reports') then
    perform cron.schedule('mdame-weekly-reports', '0 21 * * 0', 'select mdame.queue_weekly_reports()');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-weekly-reports-retry') then
    perform cron.schedule('mdame-weekly-reports-retry', '*/5 * * * *', 'select mdame.wake_due_weekly_reports()');
  end if;
  -- The adaptive engine's week: Sunday 22:30 UTC, after the weekly auditor's Sunday evening run
  -- (docs/reference/adaptive.md); marks the week due and wakes the runner, whose tick decides.
  if not exists (select 1 from cron.job where jobname = 'mdame-adapt-weekly') then
    perform cron.schedule('mdame-adapt-weekly', '30 22 * * 0', 'select mdame.mark_adaptation_week_due()');
  end if;
  -- Housekeeping (docs/reference/retention.md): a daily pass at 03:30 UTC in bounded batches, and a check
  -- every ten minutes that wakes the runner while a Storage deletion is due.
  if not exists (select 1 from cron.job where jobname = 'mdame-housekeeping') then
    perform cron.schedule('mdame-housekeeping', '30 3 * * *', 'select count(*) from mdame.housekeeping(false)');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-storage-deletions') then
    perform cron.schedule('mdame-storage-deletions', '*/10 * * * *', 'select mdame.wake_due_storage_deletions()');
  end if;
end
$$;
