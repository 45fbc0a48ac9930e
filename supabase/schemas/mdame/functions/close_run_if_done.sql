-- Closes a running run once every dimension is ingested and every unit is terminal (a unit whose
-- publications wait at stage deferred counts as done: the drain publishes them later). A run holds
-- no lock (start_run holds the environment's lock for its pass only), so closing releases nothing.

create or replace function mdame.close_run_if_done(p_run_id uuid)
returns mdame.pipeline_runs
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_failed_ingest integer;
  v_published integer;
  v_deferred integer;
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
     or exists (select 1 from mdame.work_units where run_id = p_run_id and stage not in ('published', 'deferred', 'rejected', 'failed')) then
    return v_run;
  end if;

  select count(*) filter (where status = 'failed') into v_failed_ingest from mdame.run_dimensions where run_id = p_run_id;
  select count(*), count(*) filter (where stage = 'published'), count(*) filter (where stage = 'deferred')
    into v_units, v_published, v_deferred from mdame.work_units where run_id = p_run_id;

  update mdame.pipeline_runs
     set status = case when v_failed_ingest > 0 or (v_units > 0 and v_published + v_deferred = 0 and exists (
                          select 1 from mdame.work_units where run_id = p_run_id and stage = 'failed')) then 'failed'
                       else 'completed' end,
         error = case when v_failed_ingest > 0 then v_failed_ingest || ' dimension(s) failed to ingest' end,
         finished_at = now(),
         updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.log_event(v_run.id, null, null, 'run_' || v_run.status,
    jsonb_build_object('units', v_units, 'published', v_published, 'deferred', v_deferred));
  return v_run;
end;
$$;

comment on function mdame.close_run_if_done(uuid) is 'internal: closes a run when its last unit is terminal';
