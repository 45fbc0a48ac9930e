-- Starts a run whose dimensions wait for the global lock, if the lock can be had now; true if started.

create or replace function mdame.start_queued_run(p_run_id uuid)
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

comment on function mdame.start_queued_run(uuid) is 'internal: starts a queued run once the global lock is taken';

revoke all on function mdame.start_queued_run(uuid) from public, anon, authenticated;
