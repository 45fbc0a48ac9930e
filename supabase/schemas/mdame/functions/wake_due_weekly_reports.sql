-- Wakes the stage runner when a pending weekly report is due (queued, its retry backoff over, or
-- its builder's lease run out): the minutely tick wakes the runner only for stage tasks, so pg_cron
-- calls this every five minutes, and queue_weekly_reports after queueing. Returns whether it woke.

create or replace function mdame.wake_due_weekly_reports()
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  if exists (select 1 from mdame.weekly_reports where status = 'pending' and next_attempt_at <= mdame.engine_now()) then
    perform mdame.wake_stage_runner('report');
    return true;
  end if;
  return false;
end;
$$;
