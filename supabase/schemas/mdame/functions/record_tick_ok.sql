-- The Edge Function's tick ended well (POST /pipeline/tick, after its side work): the watchdog's
-- proof that the function is alive. Whatever tick requests are pending count as answered: a tick
-- that ends proves the function runs, and a request it did not take is taken by the next tick or,
-- if the function has stopped since, dated again by the watchdog's next probe.

create or replace function mdame.record_tick_ok()
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into mdame.watchdog_checks as c (name, ok_at, updated_at)
  values ('tick_liveness', clock_timestamp(), clock_timestamp())
  on conflict (name) do update set ok_at = excluded.ok_at, updated_at = excluded.updated_at, pending_since = null;
end;
$$;
