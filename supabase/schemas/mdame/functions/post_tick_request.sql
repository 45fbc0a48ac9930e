-- The one way SQL starts a pipeline tick: net.http_post to <mdame_functions_url>/pipeline/tick with
-- the service key, both read from Vault (the real extensions on Supabase, their stand-ins on plain
-- Postgres: docs/reference/supabase-wiring.md), recorded in mdame.stage_runner_wakes as in flight until pg_net
-- records the answer or the request's timeout has passed. Runs as its caller: wake_stage_runner and
-- wake_next_tick, which run as their owner, the one role that may read the secrets.
-- The first request since the last successful tick dates the watchdog's tick check
-- (mdame.watchdog_checks, row tick_liveness).
-- pg_net sends a request only after the calling transaction commits, so a rolled-back caller wakes
-- nobody, and its wake row goes with it.

create or replace function mdame.post_tick_request(p_reason text)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  -- The tick drains for up to 100 s (functions/pipeline/app.ts); a longer timeout lets pg_net record
  -- its real answer instead of a timeout, and pg_net's worker waits on many requests at once.
  c_timeout_ms constant integer := 120000;
  v_url text;
  v_key text;
  v_request_id bigint;
begin
  perform mdame.assert_pg_net_ready();
  v_url := mdame.vault_secret('mdame_functions_url');
  if v_url is null then
    raise exception 'Vault secret mdame_functions_url is not set: the stage runner cannot be woken through pg_net'
      using errcode = 'MDN01',
            hint = 'run: select vault.create_secret(''https://<project-ref>.supabase.co/functions/v1'', ''mdame_functions_url'');';
  end if;
  v_key := mdame.vault_secret('mdame_service_role_key');
  if v_key is null then
    raise exception 'Vault secret mdame_service_role_key is not set: the stage runner cannot be woken through pg_net'
      using errcode = 'MDN01',
            hint = 'run: select vault.create_secret(''<service role key>'', ''mdame_service_role_key'');';
  end if;

  v_request_id := net.http_post(
    url := rtrim(v_url, '/') || '/pipeline/tick',
    body := jsonb_build_object('reason', p_reason),
    params := '{}'::jsonb,
    headers := jsonb_build_object('Authorization', 'Bearer ' || v_key, 'Content-Type', 'application/json'),
    timeout_milliseconds := c_timeout_ms);
  -- A reinstalled pg_net starts its ids again; a row left by the old one is stale by then.
  insert into mdame.stage_runner_wakes (request_id, reason, woken_at, expires_at)
  values (v_request_id, p_reason, clock_timestamp(), clock_timestamp() + make_interval(secs => c_timeout_ms / 1000.0))
  on conflict (request_id) do update set reason = excluded.reason, woken_at = excluded.woken_at, expires_at = excluded.expires_at;
  -- The watchdog dates a failing tick from the first request no tick has answered (record_tick_ok).
  -- Never waited for: a transaction holding the row is recording a request or a tick's end, and a
  -- wake must not queue behind it (nor deadlock with it); the watchdog's probe dates the next one.
  perform 1 from mdame.watchdog_checks where name = 'tick_liveness' and pending_since is null for update skip locked;
  if found then
    update mdame.watchdog_checks set pending_since = clock_timestamp(), updated_at = clock_timestamp() where name = 'tick_liveness';
  end if;
  return v_request_id;
end;
$$;

comment on function mdame.post_tick_request(text) is 'internal: posts one tick request through pg_net and records it in flight';
