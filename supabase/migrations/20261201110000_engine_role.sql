-- The engine's components (edge host and Edge Functions, stage runner, gpu-worker, render-runner, the
-- operator CLI through the Edge Functions) connect as mdame_engine, a role that may only call the
-- mdame RPCs: no table privileges, no pgmq, no CREATE anywhere. The RPCs run as their owner
-- (security definer, as Supabase recommends for RPCs the API roles call), so an RPC that reaches
-- pgmq or a table works for a caller that cannot. service_role (Supabase's REST API) gets the same
-- set of RPCs and nothing else: its direct DML on every table is taken back.
--
-- The role is created here without login and without a password: a migration holds no secret. The
-- local stack gives it one after the migrations (scripts/local/db.ts); on Supabase the operator does
-- (docs/roles.md).
--
-- Internal helpers (a comment starting with "internal:") are callable by no client: they skip the
-- guards the RPCs around them apply (the row lock, the caller's lease, the expected stage), so a
-- direct call could move state no transition checked. They stay security invoker: called from an
-- RPC they run as its owner, called by pg_cron as the job's owner.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'mdame_engine') then
    create role mdame_engine nologin noinherit;
  end if;
end
$$;

grant usage on schema mdame to mdame_engine;

comment on function mdame.log_event(uuid, uuid, text, text, jsonb) is 'internal: appends to the event log; RPCs log their own transitions';
comment on function mdame.set_unit_stage(uuid, text, text) is 'internal: moves a unit without checking its stage or lease';
comment on function mdame.lock_unit_at_stage(uuid, text, text, bigint, text) is 'internal: the lock-and-guard step of the stage RPCs';
comment on function mdame.retry_or_dead_letter(text, text, bigint, integer, jsonb, uuid, uuid, text, boolean) is 'internal: retry or dead-letter decision of fail_* RPCs';
comment on function mdame.start_queued_run(uuid) is 'internal: starts a queued run once the global lock is taken';
comment on function mdame.close_run_if_done(uuid) is 'internal: closes a run when its last unit is terminal';
comment on function mdame.holds_stage_claim(text, bigint, integer) is 'internal: lease check of the stage RPCs';
comment on function mdame.enqueue_stage_task(text, uuid, uuid, text) is 'internal: sends a stage task without any stage guard';
comment on function mdame.acquire_lock(text, text, integer) is 'internal: the global run lock, taken by start_run';
comment on function mdame.release_lock(text, text) is 'internal: the global run lock, released when a run ends';
comment on function mdame.archive_stage_task(bigint) is 'internal: archives a stage task without checking its holder';
comment on function mdame.cancel_queued_work(uuid) is 'internal: part of abort_run';
comment on function mdame.cancel_queued_ingest(uuid) is 'internal: part of the ingest transitions';
comment on function mdame.enqueue_render_if_ready(uuid) is 'internal: sends the render job once every asset is recorded';
comment on function mdame.record_webhook(text, text) is 'internal: replay refusal of the worker callbacks, inside their RPCs';
comment on function mdame.store_step_result(text, jsonb) is 'internal: step results are stored by the RPC that completes the step';
comment on function mdame.insert_safety_audit(uuid, uuid, text, text, text, jsonb) is 'internal: audit rows are written by record_safety_verdict';
comment on function mdame.worker_message(text, bigint) is 'internal: builds a worker job message';
comment on function mdame.assert_worker_message(text, bigint, uuid, uuid) is 'internal: checks a worker job message inside the completion RPCs';
comment on function mdame.has_queued_work(text, uuid, text) is 'internal: the tick''s wake decision';
comment on function mdame.stage_index(text) is 'internal: stage order';
comment on function mdame.dimension_config_columns() is 'internal: column list of the dimension configuration';
comment on function mdame.restrict_function_privileges() is 'internal: run by migrations';
comment on function mdame.pgmq_queue_has_headers(text) is 'internal: pgmq layout probe of archive_stage_task';

-- Read RPCs for what the components used to select from the tables. Each returns rows as they are
-- stored (the callers validate them with their Zod contracts) and takes no lock.

/** One dimension, or every dimension (by id) when p_id is null. */
create function mdame.get_dimensions(p_id text default null)
returns setof mdame.dimensions
language sql
stable
set search_path = ''
as $$
  select * from mdame.dimensions where p_id is null or id = p_id order by id;
$$;

-- The operator's PATCH reads, merges and checks the configuration under the row lock, so two
-- concurrent changes cannot combine into one neither checked; the lock lasts the caller's transaction.
create function mdame.lock_dimension(p_id text)
returns setof mdame.dimensions
language sql
set search_path = ''
as $$
  select * from mdame.dimensions where id = p_id for update;
$$;

/** Accounts, by dimension then channel; filtered by dimension and/or account id when given. */
create function mdame.get_accounts(p_dimension_id text default null, p_id uuid default null)
returns setof mdame.dimension_accounts
language sql
stable
set search_path = ''
as $$
  select * from mdame.dimension_accounts
   where (p_dimension_id is null or dimension_id = p_dimension_id) and (p_id is null or id = p_id)
   order by dimension_id, platform, channel_handle;
$$;

/** The configuration a run started a dimension with (null when the run recorded none). */
create function mdame.get_run_dimension_config(p_run_id uuid, p_dimension_id text)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select config from mdame.run_dimensions where run_id = p_run_id and dimension_id = p_dimension_id;
$$;

create function mdame.get_work_unit(p_id uuid)
returns setof mdame.work_units
language sql
stable
set search_path = ''
as $$
  select * from mdame.work_units where id = p_id;
$$;

/** A unit's scenes in order. */
create function mdame.get_scenes(p_unit_id uuid)
returns setof mdame.scenes
language sql
stable
set search_path = ''
as $$
  select * from mdame.scenes where unit_id = p_unit_id order by scene_index;
$$;

create function mdame.get_scene(p_id uuid)
returns setof mdame.scenes
language sql
stable
set search_path = ''
as $$
  select * from mdame.scenes where id = p_id;
$$;

/** A dimension's latest topics (title, fingerprint), newest first, at most 1000. */
create function mdame.get_topic_history(p_dimension_id text, p_limit integer)
returns table (title text, fingerprint text)
language sql
stable
set search_path = ''
as $$
  select coalesce(topic->>'title', ''), topic_fingerprint
    from mdame.work_units where dimension_id = p_dimension_id
   order by created_at desc limit least(greatest(coalesce(p_limit, 0), 0), 1000);
$$;

/** The latest runs, newest first, at most 500. */
create function mdame.list_runs(p_limit integer)
returns setof mdame.pipeline_runs
language sql
stable
set search_path = ''
as $$
  select * from mdame.pipeline_runs order by created_at desc limit least(greatest(coalesce(p_limit, 0), 0), 500);
$$;

create function mdame.get_publication(p_id uuid)
returns setof mdame.publications
language sql
stable
set search_path = ''
as $$
  select * from mdame.publications where id = p_id;
$$;

/** A cached model answer, or null. */
create function mdame.get_llm_cache(p_cache_key text)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select response from mdame.llm_cache where cache_key = p_cache_key;
$$;

-- A repeated store replaces the answer: the caller only stores one it has validated, and a cached
-- answer that no longer passes its contract is what it replaces.
create function mdame.store_llm_cache(p_cache_key text, p_model text, p_response jsonb)
returns void
language sql
set search_path = ''
as $$
  insert into mdame.llm_cache (cache_key, model, response) values (p_cache_key, p_model, p_response)
  on conflict (cache_key) do update set response = excluded.response, model = excluded.model, created_at = now();
$$;

-- A pull worker's heartbeat: pgmq.set_vt on the worker queues only (the stage queue has its own,
-- lease-checked extend_stage_lease). No row means the message is gone (completed or dead-lettered).
create function mdame.extend_worker_job(p_queue text, p_msg_id bigint, p_vt_s integer)
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  if p_queue is null or p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', p_queue using errcode = '22023';
  end if;
  if p_vt_s is null or p_vt_s < 1 or p_vt_s > 86400 then
    raise exception 'visibility timeout out of range (1-86400 s): %', p_vt_s using errcode = '22023';
  end if;
  return query select s.msg_id from pgmq.set_vt(p_queue, p_msg_id, p_vt_s) s;
end;
$$;

/** The environment the database records (null when none is recorded yet). */
create function mdame.get_recorded_environment()
returns text
language sql
stable
set search_path = ''
as $$
  select value from mdame.settings where key = 'env';
$$;

-- The engine's pg_cron schedules, for the doctor: cron.job shows a role only its own jobs, and the
-- jobs belong to the migration owner. In the order they were scheduled, as cron.job lists them.
create function mdame.list_schedules()
returns table (jobname text, schedule text, active boolean)
language plpgsql
stable
set search_path = ''
as $$
begin
  if to_regclass('cron.job') is null then
    return;
  end if;
  return query select j.jobname::text, j.schedule::text, j.active from cron.job j where j.jobname like 'mdame-%' order by j.jobid;
end;
$$;

-- Whether pgmq and the named queues are installed, for the doctor: the engine role has no usage on
-- schema pgmq, where to_regclass would refuse it.
create function mdame.get_queue_setup(p_queues text[])
returns table (send boolean, queues text[])
language sql
stable
set search_path = ''
as $$
  -- pg_proc, not to_regproc: pgmq 1.5 overloads send, and to_regproc of an overloaded name is null.
  select exists (select 1 from pg_catalog.pg_proc where pronamespace = to_regnamespace('pgmq') and proname = 'send'),
         array(select q from unnest(p_queues) q where to_regclass('pgmq.' || quote_ident('q_' || q)) is not null);
$$;

-- Every migration ends by calling this. For each function in mdame: nobody but its owner may call
-- an internal helper; every other function runs as its owner and is callable by mdame_engine and
-- service_role only. Tables and sequences in mdame are the owner's alone: the components reach
-- them through the RPCs, so no client role keeps (or is later given) a privilege on them.
create or replace function mdame.restrict_function_privileges()
returns void
language plpgsql
set search_path = ''
as $$
declare
  f record;
  t record;
begin
  for f in
    select p.oid::regprocedure as sig, p.prosecdef,
           coalesce(obj_description(p.oid, 'pg_proc'), '') like 'internal:%' as internal
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'mdame' and p.prokind = 'f'
  loop
    execute format('revoke all on function %s from public, anon, authenticated, service_role, mdame_engine', f.sig);
    if f.internal then
      if f.prosecdef then
        execute format('alter function %s security invoker', f.sig);
      end if;
      continue;
    end if;
    if not f.prosecdef then
      execute format('alter function %s security definer', f.sig);
    end if;
    execute format('grant execute on function %s to service_role, mdame_engine', f.sig);
  end loop;

  for t in
    select c.oid::regclass as rel from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'mdame' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
  loop
    execute format('revoke all on %s from public, anon, authenticated, service_role, mdame_engine', t.rel);
  end loop;
end;
$$;

-- wake_stage_runner was the one security definer function (it reads Vault); it stays callable, as
-- enqueues by any caller must wake the runner, and is now like every other RPC.
select mdame.restrict_function_privileges();
