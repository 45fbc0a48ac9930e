-- Any language, and the configuration in the run key (docs/languages.md, docs/run-keys.md).
-- Languages: any BCP-47 tag in canonical form (the contract canonicalises it), checked here by shape;
-- the voice's language subtag (Edge voice names start with their locale) must be the dimension's.
-- Runs: keyed by sha256(env:date:trigger:<canonical JSON {dimension_id: config hash}>) over the
-- dimensions they start; a trigger starts the dimensions whose current configuration no run of the
-- day started. Each run_dimension keeps the configuration it started with. The global lock stays one
-- run at a time: a new run finding it held waits ('queued') and starts when the holder closes.

alter table mdame.dimensions drop constraint dimensions_language_check;
alter table mdame.dimensions add constraint dimensions_language_check
  check (language ~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*$');
alter table mdame.dimensions add constraint dimensions_tts_voice_language_check
  check (split_part(tts_voice, '-', 1) = split_part(language, '-', 1));

alter table mdame.run_dimensions add column config_hash text check (config_hash ~ '^[0-9a-f]{64}$');
alter table mdame.run_dimensions add column config jsonb;
alter table mdame.run_dimensions drop constraint run_dimensions_status_check;
alter table mdame.run_dimensions add constraint run_dimensions_status_check
  check (status in ('queued', 'ingesting', 'ingested', 'failed'));
comment on column mdame.run_dimensions.config is 'The dimension''s configuration when the run started it; the run''s stages use it.';
create index run_dimensions_config_idx on mdame.run_dimensions (dimension_id, config_hash);

-- JSON with object keys in code-point order at every depth and no insignificant space: the same
-- text shared/hashing.ts canonicalJson writes for the same value.
create function mdame.canonical_json(p_value jsonb)
returns text
language plpgsql
immutable
set search_path = ''
as $$
begin
  case jsonb_typeof(p_value)
    when 'object' then
      return '{' || coalesce((select string_agg(to_jsonb(e.key)::text || ':' || mdame.canonical_json(e.value), ',' order by e.key collate "C")
                                from jsonb_each(p_value) e), '') || '}';
    when 'array' then
      return '[' || coalesce((select string_agg(mdame.canonical_json(a.value), ',' order by a.ord)
                                from jsonb_array_elements(p_value) with ordinality a(value, ord)), '') || ']';
    else
      return p_value::text;
  end case;
end;
$$;

-- A dimension's configuration: every column but its state (active) and bookkeeping times.
create function mdame.dimension_config(p_dimension mdame.dimensions)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select to_jsonb(p_dimension) - 'active' - 'created_at' - 'updated_at';
$$;

create function mdame.config_hash(p_config jsonb)
returns text
language sql
immutable
set search_path = ''
as $$
  select encode(sha256(convert_to(mdame.canonical_json(p_config), 'UTF8')), 'hex');
$$;

-- sha256(env:date:trigger:<canonical JSON {dimension_id: config hash}>), as shared/hashing.ts runKey.
create function mdame.run_key(p_env text, p_run_date date, p_trigger_kind text, p_config_hashes jsonb)
returns text
language sql
stable
set search_path = ''
as $$
  select encode(sha256(convert_to(p_env || ':' || to_char(p_run_date, 'YYYY-MM-DD') || ':' || p_trigger_kind || ':'
                                  || mdame.canonical_json(p_config_hashes), 'UTF8')), 'hex');
$$;

-- Starts a run, idempotent on its key: a repeated call returns the existing run with created = false.
-- p_dimensions narrows the active dimensions it starts (with p_dimension). When another run holds the
-- global lock the call is refused (MDL01), unless p_queue_if_busy: the run is then created with its
-- dimensions 'queued', and close_run_if_done starts it once the lock is free.
drop function mdame.start_run(text, text, text, date, text);
create function mdame.start_run(p_idempotency_key text, p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null,
                                p_dimensions text[] default null, p_queue_if_busy boolean default false)
returns table (run_id uuid, status text, created boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_dimension mdame.dimensions;
  v_queued boolean := false;
  v_config jsonb;
begin
  perform mdame.assert_environment(p_env);
  -- Recovery first: overdue work of earlier runs is resumed or failed before anything new starts,
  -- and runs it leaves all-terminal are closed (releasing their lock).
  perform mdame.recover_overdue_work();
  perform mdame.close_run_if_done(r.id) from mdame.pipeline_runs r where r.status = 'running' order by r.created_at;
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;

  -- clock_timestamp: runs started in one transaction still order by when each started.
  insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, dimension_filter, created_at)
  values (p_idempotency_key, p_env, p_run_date, p_trigger_kind, p_dimension, clock_timestamp())
  on conflict (idempotency_key) do nothing
  returning * into v_run;

  if not found then
    select * into v_run from mdame.pipeline_runs r where r.idempotency_key = p_idempotency_key;
    return query select v_run.id, v_run.status, false;
    return;
  end if;

  begin
    perform mdame.acquire_lock('pipeline:' || p_env, v_run.id::text, 3600);
  exception when sqlstate 'MDL01' then
    if not p_queue_if_busy then
      raise;
    end if;
    v_queued := true;
  end;

  for v_dimension in
    select * from mdame.dimensions d
     where d.active and (p_dimension is null or d.id = p_dimension) and (p_dimensions is null or d.id = any (p_dimensions))
     order by d.id
  loop
    v_config := mdame.dimension_config(v_dimension);
    insert into mdame.run_dimensions (run_id, dimension_id, status, config_hash, config)
    values (v_run.id, v_dimension.id, case when v_queued then 'queued' else 'ingesting' end, mdame.config_hash(v_config), v_config);
    if not v_queued then
      perform mdame.enqueue_stage_task('ingest', v_run.id, null, v_dimension.id);
    end if;
  end loop;

  perform mdame.log_event(v_run.id, null, null, case when v_queued then 'run_queued' else 'run_started' end,
    jsonb_build_object('trigger_kind', p_trigger_kind, 'run_date', p_run_date, 'dimension', p_dimension,
                       'dimensions', (select jsonb_agg(rd.dimension_id order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = v_run.id)));
  perform mdame.close_run_if_done(v_run.id);
  return query select r.id, r.status, true from mdame.pipeline_runs r where r.id = v_run.id;
end;
$$;

-- Today's trigger (manual without a caller key, or the daily cron): starts the dimensions in scope
-- whose current configuration no run of this environment and day has started, keyed by their
-- configurations; returns the day's latest run covering the scope when every one is started already.
create function mdame.trigger_run(p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null)
returns table (run_id uuid, status text, created boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_changed jsonb := '{}'::jsonb;
  v_dimension mdame.dimensions;
  v_hash text;
  v_run mdame.pipeline_runs;
begin
  perform mdame.assert_environment(p_env);
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;
  -- Two triggers at once see the same runs of the day: the second finds what the first started.
  perform pg_advisory_xact_lock(hashtextextended('mdame.trigger_run:' || p_env, 0));

  for v_dimension in
    select * from mdame.dimensions d where d.active and (p_dimension is null or d.id = p_dimension) order by d.id
  loop
    v_hash := mdame.config_hash(mdame.dimension_config(v_dimension));
    if not exists (
      select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
       where r.env = p_env and r.run_date = p_run_date and rd.dimension_id = v_dimension.id and rd.config_hash = v_hash) then
      v_changed := v_changed || jsonb_build_object(v_dimension.id, v_hash);
    end if;
  end loop;

  if v_changed = '{}'::jsonb then
    select r.* into v_run from mdame.pipeline_runs r
     where r.env = p_env and r.run_date = p_run_date
       and exists (select 1 from mdame.run_dimensions rd join mdame.dimensions d on d.id = rd.dimension_id
                    where rd.run_id = r.id and d.active and (p_dimension is null or d.id = p_dimension))
     order by r.created_at desc
     limit 1;
    if found then
      perform mdame.close_run_if_done(v_run.id);
      return query select r.id, r.status, false from mdame.pipeline_runs r where r.id = v_run.id;
      return;
    end if;
  end if;

  return query select * from mdame.start_run(mdame.run_key(p_env, p_run_date, p_trigger_kind, v_changed), p_env, p_trigger_kind,
                                             p_run_date, p_dimension, array(select jsonb_object_keys(v_changed)), true);
end;
$$;

-- The daily cron trigger: today's dimensions whose configuration today's runs have not started yet.
create or replace function mdame.trigger_scheduled_run()
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_env text;
  v_run_id uuid;
begin
  select value into v_env from mdame.settings where key = 'env';
  select t.run_id into v_run_id from mdame.trigger_run(v_env, 'cron', (now() at time zone 'utc')::date, null) t;
  return v_run_id;
end;
$$;

-- Starts a run whose dimensions wait for the global lock, if the lock can be had now; true if started.
create function mdame.start_queued_run(p_run_id uuid)
returns boolean
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_dimension text;
begin
  select * into v_run from mdame.pipeline_runs where id = p_run_id and status = 'running' for no key update skip locked;
  if not found or not exists (select 1 from mdame.run_dimensions where run_id = p_run_id and status = 'queued') then
    return false;
  end if;
  begin
    perform mdame.acquire_lock('pipeline:' || v_run.env, v_run.id::text, 3600);
  exception when sqlstate 'MDL01' then
    return false;
  end;
  for v_dimension in
    update mdame.run_dimensions set status = 'ingesting', updated_at = now()
     where run_id = p_run_id and status = 'queued'
    returning dimension_id
  loop
    perform mdame.enqueue_stage_task('ingest', v_run.id, null, v_dimension);
  end loop;
  perform mdame.log_event(v_run.id, null, null, 'run_started', jsonb_build_object('after_queue', true));
  return true;
end;
$$;

-- Closes a running run once every dimension is ingested and every unit is terminal, releases its
-- lock and starts the oldest run waiting for it. A run still waiting for the lock tries to take it.
create or replace function mdame.close_run_if_done(p_run_id uuid)
returns mdame.pipeline_runs
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_failed_ingest integer;
  v_published integer;
  v_units integer;
  v_next uuid;
begin
  -- no key update: child rows written in this transaction hold key-share locks on the run, which
  -- this must not wait on (two units closing at once would deadlock).
  select * into v_run from mdame.pipeline_runs where id = p_run_id for no key update;
  if not found then
    raise exception 'no run %', p_run_id using errcode = 'MDN01';
  end if;
  if v_run.status <> 'running' then
    return v_run;
  end if;
  if exists (select 1 from mdame.run_dimensions where run_id = p_run_id and status = 'queued') then
    perform mdame.start_queued_run(p_run_id);
    return v_run;
  end if;
  if exists (select 1 from mdame.run_dimensions where run_id = p_run_id and status = 'ingesting')
     or exists (select 1 from mdame.work_units where run_id = p_run_id and stage not in ('published', 'rejected', 'failed')) then
    return v_run;
  end if;

  select count(*) filter (where status = 'failed') into v_failed_ingest from mdame.run_dimensions where run_id = p_run_id;
  select count(*), count(*) filter (where stage = 'published') into v_units, v_published from mdame.work_units where run_id = p_run_id;

  update mdame.pipeline_runs
     set status = case when v_failed_ingest > 0 or (v_units > 0 and v_published = 0 and exists (
                          select 1 from mdame.work_units where run_id = p_run_id and stage = 'failed')) then 'failed'
                       else 'completed' end,
         error = case when v_failed_ingest > 0 then v_failed_ingest || ' dimension(s) failed to ingest' end,
         finished_at = now(),
         updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.release_lock('pipeline:' || v_run.env, v_run.id::text);
  perform mdame.log_event(v_run.id, null, null, 'run_' || v_run.status,
    jsonb_build_object('units', v_units, 'published', v_published));

  select r.id into v_next from mdame.pipeline_runs r
   where r.env = v_run.env and r.status = 'running'
     and exists (select 1 from mdame.run_dimensions rd where rd.run_id = r.id and rd.status = 'queued')
   order by r.created_at
   limit 1;
  if v_next is not null then
    perform mdame.start_queued_run(v_next);
  end if;
  return v_run;
end;
$$;

-- A script whose hooks all scored under the pass mark: the unit is rejected with the reason, and
-- every round's audits are kept on the unit (work_units.script.hook_audits) and in the step result,
-- so an operator sees why each candidate failed.
create function mdame.reject_script(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_reason text, p_hook_audits jsonb, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  if jsonb_typeof(p_hook_audits) is distinct from 'array' then
    raise exception 'hook audits must be a JSON array' using errcode = 'MDS01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'script', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set script = jsonb_build_object('hook_audits', p_hook_audits) where id = p_unit_id;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('rejected', p_reason, 'hook_audits', p_hook_audits));
  v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', p_reason);
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'script', 'script_rejected',
    jsonb_build_object('reason', p_reason, 'audits', jsonb_array_length(p_hook_audits)));
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;

select mdame.restrict_function_privileges();
