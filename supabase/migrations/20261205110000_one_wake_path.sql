-- One wake path on every server: mdame.wake_stage_runner always posts the tick through pg_net, with
-- the secrets from Vault. On plain Postgres the local stack installs pg_net's and Vault's SQL
-- surface (supabase/pg-net-compat, supabase/vault-compat) and its `net` component sends the
-- requests, so the local stack wakes exactly as a Supabase project does; the pg_notify branch and
-- the edge host's LISTEN and poll are gone. The ticks in flight are recorded and bounded
-- (stage_runner.max_ticks in mdame.settings, 4 by default), and a tick out of time wakes its
-- successor from the database (mdame.wake_next_tick).

create table mdame.stage_runner_wakes (
  request_id bigint not null,
  reason text not null,
  woken_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  constraint stage_runner_wakes_pkey primary key (request_id)
);

comment on table mdame.stage_runner_wakes is 'Tick requests posted through net.http_post whose answer pg_net has not recorded yet: the ticks in flight, which mdame.wake_stage_runner bounds.';

alter table mdame.stage_runner_wakes enable row level security;

-- The one way SQL starts a pipeline tick: net.http_post to <mdame_functions_url>/pipeline/tick with
-- the service key, both read from Vault (the real extensions on Supabase, their stand-ins on plain
-- Postgres: docs/supabase-wiring.md), recorded in mdame.stage_runner_wakes as in flight until pg_net
-- records the answer or the request's timeout has passed. Runs as its caller: wake_stage_runner and
-- wake_next_tick, which run as their owner, the one role that may read the secrets.
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
  if to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is null or to_regclass('net._http_response') is null then
    raise exception 'pg_net is not installed (no net.http_post or net._http_response): the stage runner cannot be woken'
      using errcode = 'MDN01',
            hint = 'on Supabase: create extension pg_net; on plain Postgres: npm run db:reset, which installs supabase/pg-net-compat/pg_net.sql';
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

  v_request_id := net.http_post(
    url := rtrim(btrim(v_url), '/') || '/pipeline/tick',
    body := jsonb_build_object('reason', p_reason),
    params := '{}'::jsonb,
    headers := jsonb_build_object('Authorization', 'Bearer ' || btrim(v_key), 'Content-Type', 'application/json'),
    timeout_milliseconds := c_timeout_ms);
  -- A reinstalled pg_net starts its ids again; a row left by the old one is stale by then.
  insert into mdame.stage_runner_wakes (request_id, reason, woken_at, expires_at)
  values (v_request_id, p_reason, clock_timestamp(), clock_timestamp() + make_interval(secs => c_timeout_ms / 1000.0))
  on conflict (request_id) do update set reason = excluded.reason, woken_at = excluded.woken_at, expires_at = excluded.expires_at;
  return v_request_id;
end;
$$;

comment on function mdame.post_tick_request(text) is 'internal: posts one tick request through pg_net and records it in flight';

revoke all on function mdame.post_tick_request(text) from public, anon, authenticated;

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
  if to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is null or to_regclass('net._http_response') is null then
    raise exception 'pg_net is not installed (no net.http_post or net._http_response): the stage runner cannot be woken'
      using errcode = 'MDN01',
            hint = 'on Supabase: create extension pg_net; on plain Postgres: npm run db:reset, which installs supabase/pg-net-compat/pg_net.sql';
  end if;
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

revoke all on function mdame.wake_stage_runner(text) from public, anon, authenticated;
grant execute on function mdame.wake_stage_runner(text) to mdame_engine;
grant execute on function mdame.wake_stage_runner(text) to service_role;

-- Called by a tick whose time budget ran out with stage tasks still visible (POST /pipeline/tick,
-- `more`): posts the tick that carries on. Not bounded by stage_runner.max_ticks, since the caller
-- is one of the ticks in flight and ends as its successor starts; refusing it when every slot is
-- taken would leave the work to the minutely mdame-tick whenever all ticks end together. The tick
-- never calls itself again from its HTTP answer: pg_net ignores that answer on Supabase, so the
-- successor must come from the database. Returns the pg_net request id.

create or replace function mdame.wake_next_tick()
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
begin
  return mdame.post_tick_request('more');
end;
$$;

revoke all on function mdame.wake_next_tick() from public, anon, authenticated;
grant execute on function mdame.wake_next_tick() to mdame_engine;
grant execute on function mdame.wake_next_tick() to service_role;

select mdame.restrict_function_privileges();
