-- pg_cron's check of the deletion outbox (mdame-storage-deletions): the minutely tick wakes the
-- runner only for stage tasks, so this wakes it when an outbox entry is due (queued by the daily
-- housekeeping, or a retry whose wait ran out). Returns whether it woke the runner.

create or replace function mdame.wake_due_storage_deletions()
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  if exists (select 1 from mdame.storage_deletions d where d.not_before <= mdame.engine_now()) then
    perform mdame.wake_stage_runner('storage_deletions');
    return true;
  end if;
  return false;
end;
$$;
