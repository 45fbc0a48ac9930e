-- Environment guard, the global lock, run start and run close.

create function mdame.assert_environment(p_env text)
returns text
language plpgsql
stable
set search_path = ''
as $$
declare
  v_env text;
begin
  select value into v_env from mdame.settings where key = 'env';
  if v_env is null then
    raise exception 'this database records no environment (mdame.settings key env)' using errcode = 'MDE01';
  end if;
  if p_env is distinct from v_env then
    raise exception 'ENV=% but this database is %', coalesce(p_env, '(unset)'), v_env using errcode = 'MDE01';
  end if;
  return v_env;
end;
$$;

-- Takes the named lock for p_holder, or extends it when p_holder already has it. An expired lease
-- may be taken by anyone; a live one held by another holder raises MDL01.
create function mdame.acquire_lock(p_name text, p_holder text, p_lease_s integer)
returns mdame.system_locks
language plpgsql
set search_path = ''
as $$
declare
  v_lock mdame.system_locks;
begin
  insert into mdame.system_locks (name, holder, lease_expires_at)
  values (p_name, p_holder, now() + make_interval(secs => p_lease_s))
  on conflict (name) do nothing
  returning * into v_lock;
  if found then
    return v_lock;
  end if;

  select * into v_lock from mdame.system_locks where name = p_name for update;
  if v_lock.holder <> p_holder and v_lock.lease_expires_at > now() then
    raise exception 'lock % is held by % until %', p_name, v_lock.holder, v_lock.lease_expires_at using errcode = 'MDL01';
  end if;
  update mdame.system_locks
     set holder = p_holder,
         acquired_at = case when holder = p_holder then acquired_at else now() end,
         lease_expires_at = now() + make_interval(secs => p_lease_s)
   where name = p_name
  returning * into v_lock;
  return v_lock;
end;
$$;

-- Releases the lock if p_holder holds it; true when released, false when it was not the holder's.
create function mdame.release_lock(p_name text, p_holder text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  delete from mdame.system_locks where name = p_name and holder = p_holder;
  return found;
end;
$$;

-- Starts a run, idempotent on its key: a repeated call returns the existing run with created = false.
create function mdame.start_run(p_idempotency_key text, p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null)
returns table (run_id uuid, status text, created boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_dimension text;
begin
  perform mdame.assert_environment(p_env);
  -- Recovery first: overdue work of earlier runs is resumed or failed before anything new starts,
  -- and runs it leaves all-terminal are closed (releasing their lock).
  perform mdame.recover_overdue_work();
  perform mdame.close_run_if_done(r.id) from mdame.pipeline_runs r where r.status = 'running';
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;

  insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, dimension_filter)
  values (p_idempotency_key, p_env, p_run_date, p_trigger_kind, p_dimension)
  on conflict (idempotency_key) do nothing
  returning * into v_run;

  if not found then
    select * into v_run from mdame.pipeline_runs r where r.idempotency_key = p_idempotency_key;
    return query select v_run.id, v_run.status, false;
    return;
  end if;

  perform mdame.acquire_lock('pipeline:' || p_env, v_run.id::text, 3600);

  for v_dimension in
    select d.id from mdame.dimensions d
     where d.active and (p_dimension is null or d.id = p_dimension)
     order by d.id
  loop
    insert into mdame.run_dimensions (run_id, dimension_id) values (v_run.id, v_dimension);
    perform mdame.enqueue_stage_task('ingest', v_run.id, null, v_dimension);
  end loop;

  perform mdame.log_event(v_run.id, null, null, 'run_started',
    jsonb_build_object('trigger_kind', p_trigger_kind, 'run_date', p_run_date, 'dimension', p_dimension));
  perform mdame.close_run_if_done(v_run.id);
  return query select r.id, r.status, true from mdame.pipeline_runs r where r.id = v_run.id;
end;
$$;

-- Closes a running run once every dimension is ingested and every unit is terminal; releases its lock.
create function mdame.close_run_if_done(p_run_id uuid)
returns mdame.pipeline_runs
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_failed_ingest integer;
  v_published integer;
  v_units integer;
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
  return v_run;
end;
$$;

-- Run and per-unit status, as the status endpoint shows it.
create function mdame.get_run_status(p_run_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'run', to_jsonb(r) - 'idempotency_key',
    'dimensions', coalesce((select jsonb_agg(to_jsonb(rd) - 'run_id' order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = r.id), '[]'::jsonb),
    'units', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', u.id, 'dimension_id', u.dimension_id, 'stage', u.stage, 'title', coalesce(u.script->>'title', u.topic->>'title'),
        'error', u.error, 'updated_at', u.updated_at,
        'scenes_ready', (select count(*) from mdame.scenes s where s.unit_id = u.id and s.status = 'ready'),
        'scenes_total', (select count(*) from mdame.scenes s where s.unit_id = u.id),
        'video', u.video,
        'publications', coalesce((select jsonb_agg(jsonb_build_object('platform', p.platform, 'status', p.status, 'external_id', p.external_id))
                                    from mdame.publications p where p.unit_id = u.id), '[]'::jsonb)
      ) order by u.dimension_id, u.created_at)
      from mdame.work_units u where u.run_id = r.id), '[]'::jsonb))
  from mdame.pipeline_runs r
  where r.id = p_run_id;
$$;
