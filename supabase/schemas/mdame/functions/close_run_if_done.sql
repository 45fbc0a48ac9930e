-- Closes a running run once every dimension is ingested and every unit is terminal (a unit whose
-- publications wait at stage deferred counts as done: the drain publishes them later), releases its
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
  v_deferred integer;
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
  perform mdame.release_lock('pipeline:' || v_run.env, v_run.id::text);
  perform mdame.log_event(v_run.id, null, null, 'run_' || v_run.status,
    jsonb_build_object('units', v_units, 'published', v_published, 'deferred', v_deferred));

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

comment on function mdame.close_run_if_done(uuid) is 'internal: closes a run when its last unit is terminal';

revoke all on function mdame.close_run_if_done(uuid) from public, anon, authenticated;
