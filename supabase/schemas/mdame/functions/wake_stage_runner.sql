-- Same contract as before (one optional reason, returns nothing; every caller uses perform).
-- security definer: the RPCs run as their caller, and on Supabase only the owner of the migrations
-- (postgres) may read vault.decrypted_secrets; service_role may not, and must not need to. The
-- function hands nothing back, so running it as its owner reveals no secret to the caller.
-- The wake is part of the caller's transaction: pg_net sends queued requests only after commit, so
-- a rolled-back enqueue wakes nobody, exactly as pg_notify behaves.

create or replace function mdame.wake_stage_runner(p_reason text default 'enqueue'::text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_url text;
  v_key text;
begin
  if to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is null
     or to_regclass('vault.decrypted_secrets') is null then
    perform pg_notify('mdame_wake', p_reason);
    return;
  end if;

  select s.decrypted_secret into v_url from vault.decrypted_secrets s where s.name = 'mdame_functions_url';
  if v_url is null or btrim(v_url) = '' then
    raise exception 'Vault secret mdame_functions_url is not set: the stage runner cannot be woken through pg_net'
      using errcode = 'MDN01',
            hint = 'run: select vault.create_secret(''https://<project-ref>.supabase.co/functions/v1'', ''mdame_functions_url'');';
  end if;
  select s.decrypted_secret into v_key from vault.decrypted_secrets s where s.name = 'mdame_service_role_key';
  if v_key is null or btrim(v_key) = '' then
    raise exception 'Vault secret mdame_service_role_key is not set: the stage runner cannot be woken through pg_net'
      using errcode = 'MDN01',
            hint = 'run: select vault.create_secret(''<service role key>'', ''mdame_service_role_key'');';
  end if;

  -- The tick drains for up to 100 s (functions/pipeline/app.ts); a longer timeout lets pg_net record
  -- its real answer instead of a timeout, and pg_net's worker waits on many requests at once.
  perform net.http_post(
    url := rtrim(btrim(v_url), '/') || '/pipeline/tick',
    body := jsonb_build_object('reason', p_reason),
    params := '{}'::jsonb,
    headers := jsonb_build_object('Authorization', 'Bearer ' || btrim(v_key), 'Content-Type', 'application/json'),
    timeout_milliseconds := 120000);
end;
$$;

revoke all on function mdame.wake_stage_runner(text) from public, anon, authenticated;
grant execute on function mdame.wake_stage_runner(text) to mdame_engine;
grant execute on function mdame.wake_stage_runner(text) to service_role;
