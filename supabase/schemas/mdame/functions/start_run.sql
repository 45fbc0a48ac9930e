-- Starts a run, idempotent on its key: a repeated call returns the existing run with created = false.
-- A dimension that a run of this environment and date still running has started with its current
-- configuration is that run's: it is left out, and when that leaves nothing of the scope, the
-- latest such run is returned (created = false), so two triggers of one dimension-day make one run.
-- The call is one orchestration pass of the environment: it holds the lock 'pipeline:<env>' for the
-- pass only (recovery, closing finished runs, intake, dispatch), releasing it before it returns, so
-- a run starts when it is due whatever other runs have in flight; their units are protected by
-- their keys and leases, never by this lock. A pass started meanwhile waits for this one to commit.
-- p_run_date null: the local date of the scope's dimensions on the engine clock (mdame.local_run_date);
-- a scope whose dimensions are on different local dates is refused (MDS01), naming each.

create or replace function mdame.start_run(p_idempotency_key text, p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null::text, p_dimensions text[] default null::text[])
returns table(run_id uuid, status text, created boolean)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_dimension mdame.dimensions;
  v_config jsonb;
  v_scope text[];
  v_pass text := 'pass:' || txid_current();
  v_run_date date := p_run_date;
  v_dates text;
  v_date_count integer;
begin
  perform mdame.assert_environment(p_env);
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;
  if v_run_date is null then
    select min(x.run_date), count(distinct x.run_date), string_agg(x.id || ': ' || x.run_date, ', ' order by x.id)
      into v_run_date, v_date_count, v_dates
      from (select d.id, mdame.local_run_date(d.publishing, mdame.engine_now()) as run_date from mdame.dimensions d
             where d.active and (p_dimension is null or d.id = p_dimension) and (p_dimensions is null or d.id = any (p_dimensions))) x;
    if v_date_count > 1 then
      raise exception 'the dimensions in scope are on different local dates (%): trigger each on its own', v_dates using errcode = 'MDS01';
    end if;
    v_run_date := coalesce(v_run_date, (mdame.engine_now() at time zone 'UTC')::date);
  end if;
  perform mdame.acquire_lock('pipeline:' || p_env, v_pass, 300);
  -- Recovery first: overdue work of earlier runs is resumed or failed before anything new starts,
  -- and runs it leaves all-terminal are closed; a run another transaction holds (a completion in
  -- progress) is skipped, never waited on: the next pass or tick closes it.
  perform mdame.recover_overdue_work();
  perform mdame.close_run_if_done(r.id)
     from (select p.id from mdame.pipeline_runs p where p.status = 'running' order by p.created_at for no key update skip locked) r;

  select * into v_run from mdame.pipeline_runs r where r.idempotency_key = p_idempotency_key;
  if found then
    perform mdame.release_lock('pipeline:' || p_env, v_pass);
    return query select v_run.id, v_run.status, false;
    return;
  end if;
  v_scope := array(
    select d.id from mdame.dimensions d
     where d.active and (p_dimension is null or d.id = p_dimension) and (p_dimensions is null or d.id = any (p_dimensions))
       and not exists (
         select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
          where r.env = p_env and r.run_date = v_run_date and r.status = 'running' and rd.dimension_id = d.id
            and rd.config_hash = mdame.config_hash(mdame.dimension_config(d)))
     order by d.id);
  if cardinality(v_scope) = 0 then
    select r.* into v_run from mdame.pipeline_runs r
     where r.env = p_env and r.run_date = v_run_date and r.status = 'running'
       and exists (select 1 from mdame.run_dimensions rd join mdame.dimensions d on d.id = rd.dimension_id
                    where rd.run_id = r.id and d.active and (p_dimension is null or d.id = p_dimension)
                      and (p_dimensions is null or d.id = any (p_dimensions)))
     order by r.created_at desc
     limit 1;
    if found then
      perform mdame.release_lock('pipeline:' || p_env, v_pass);
      return query select v_run.id, v_run.status, false;
      return;
    end if;
  end if;

  -- clock_timestamp: runs started in one transaction still order by when each started.
  insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, dimension_filter, created_at)
  values (p_idempotency_key, p_env, v_run_date, p_trigger_kind, p_dimension, clock_timestamp())
  on conflict (idempotency_key) do nothing
  returning * into v_run;

  if not found then
    perform mdame.release_lock('pipeline:' || p_env, v_pass);
    return query select r.id, r.status, false from mdame.pipeline_runs r where r.idempotency_key = p_idempotency_key;
    return;
  end if;

  for v_dimension in select * from mdame.dimensions d where d.id = any (v_scope) order by d.id loop
    v_config := mdame.dimension_config(v_dimension);
    insert into mdame.run_dimensions (run_id, dimension_id, status, config_hash, config)
    values (v_run.id, v_dimension.id, 'ingesting', mdame.config_hash(v_config), v_config);
    perform mdame.enqueue_stage_task('ingest', v_run.id, null, v_dimension.id);
  end loop;

  perform mdame.log_event(v_run.id, null, null, 'run_started',
    jsonb_build_object('trigger_kind', p_trigger_kind, 'run_date', v_run_date, 'dimension', p_dimension,
                       'dimensions', (select jsonb_agg(rd.dimension_id order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = v_run.id)));
  perform mdame.close_run_if_done(v_run.id);
  perform mdame.release_lock('pipeline:' || p_env, v_pass);
  return query select r.id, r.status, true from mdame.pipeline_runs r where r.id = v_run.id;
end;
$$;
