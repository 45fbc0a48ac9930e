-- The watchdog (pg_cron job mdame-watchdog, every minute): mdame.watchdog_at on the real clock.

create or replace function mdame.watchdog()
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
begin
  return mdame.watchdog_at(clock_timestamp());
end;
$$;

comment on function mdame.watchdog() is 'internal: the pg_cron job mdame-watchdog (mdame.watchdog_at on the real clock)';
