-- pg_cron: the minutely tick (recovery sweep; wakes the stage runner when work is visible), the
-- scheduled runs, checked every minute: each dimension starts its day's production at its own local
-- time (mdame.trigger_scheduled_run), and the minutely drain of deferred publications whose time has
-- come. Created only when absent, never by swallowing an error, so a rerun changes nothing.

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
  -- Alerts: stale deferrals raised, and the runner woken while an alert delivery is due (docs/alerts.md).
  if not exists (select 1 from cron.job where jobname = 'mdame-alerts') then
    perform cron.schedule('mdame-alerts', '* * * * *', 'select mdame.check_alerts()');
  end if;
end
$$;
