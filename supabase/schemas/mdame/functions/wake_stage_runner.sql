-- Wakes the stage runner when stage work may be waiting (an enqueue on an idle queue, the minutely
-- tick, a retried dead letter): one tick request through pg_net (post_tick_request), unless as many
-- ticks as stage_runner.max_ticks allows are already in flight, in which case those ticks drain the
-- work (each claims until its claim comes back empty, and one that runs out of time wakes its
-- successor: wake_next_tick). A tick is in flight from its request until pg_net records its answer,
-- or until the request's timeout has passed (a lost request or a crashed sender frees its slot).
-- The cap is soft: wakes committing at the same instant may each take the last slot. Claims use
-- `for update skip locked`, so ticks side by side never run the same task.
-- Same contract as before (one optional reason, returns nothing; every caller uses perform).
-- security definer: the RPCs run as their caller, and on Supabase only the owner of the migrations
-- (postgres) may read vault.decrypted_secrets; service_role may not, and must not need to. The
-- function hands nothing back, so running it as its owner reveals no secret to the caller.

create or replace function mdame.wake_stage_runner(p_reason text default 'enqueue'::text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_setting text;
  v_max_ticks integer := 4;
  v_in_flight integer;
begin
  perform mdame.assert_pg_net_ready();
  -- A setting that is not a count from 1 to 100 keeps the default: a typo must not stop every enqueue.
  select s.value into v_setting from mdame.settings s where s.key = 'stage_runner.max_ticks';
  if v_setting ~ '^[0-9]{1,3}$' and v_setting::integer between 1 and 100 then
    v_max_ticks := v_setting::integer;
  end if;

  -- Responses created after the wake: pg_net indexes them by time, not by id.
  delete from mdame.stage_runner_wakes w
   where w.expires_at <= clock_timestamp()
      or exists (select 1 from net._http_response r where r.created >= w.woken_at and r.id = w.request_id);
  select count(*) into v_in_flight from mdame.stage_runner_wakes;
  if v_in_flight >= v_max_ticks then
    return;
  end if;
  perform mdame.post_tick_request(p_reason);
end;
$$;
