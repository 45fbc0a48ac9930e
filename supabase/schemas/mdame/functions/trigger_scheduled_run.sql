-- The scheduled trigger pg_cron calls every minute (mdame-scheduled-runs): starts the dimensions whose
-- production start has come today in their own time zone and which today has not started
-- (mdame.trigger_due_runs); returns the runs it started, none when nothing is due.

create or replace function mdame.trigger_scheduled_run()
returns table(run_id uuid, status text, created boolean)
language sql
security definer
set search_path = ''
as $$
  select * from mdame.trigger_due_runs(now());
$$;
