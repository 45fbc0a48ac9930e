-- Operator abort: cancels the run's pending work, fails its unpublished units, and returns the
-- assets only they used so the caller can release them. Published units are left as they are.
-- An already-terminal run is returned unchanged.

create or replace function mdame.abort_run(p_run_id uuid, p_reason text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_unit mdame.work_units;
  v_cancelled integer := 0;
  v_assets text[] := '{}';
  v_key text;
  v_reason text := coalesce(nullif(trim(p_reason), ''), 'no reason given');
begin
  select * into v_run from mdame.pipeline_runs where id = p_run_id for no key update;
  if not found then
    raise exception 'no run %', p_run_id using errcode = 'MDN01';
  end if;
  if v_run.status <> 'running' then
    return jsonb_build_object('run', to_jsonb(v_run), 'cancelled_units', 0, 'released_assets', '[]'::jsonb);
  end if;

  for v_unit in select * from mdame.work_units where run_id = p_run_id and stage <> 'published' order by id for update loop
    perform mdame.cancel_queued_work(v_unit.id);
    foreach v_key in array array[
      v_unit.voice->>'audio_key',
      regexp_replace(v_unit.voice->>'audio_key', '\.mp3$', '.json'),
      v_unit.video->>'video_key'] loop
      if v_key is not null and not exists (
        select 1 from mdame.work_units w
         where w.stage = 'published' and (w.voice->>'audio_key' = v_key or w.video->>'video_key' = v_key
                                          or regexp_replace(w.voice->>'audio_key', '\.mp3$', '.json') = v_key)) then
        v_assets := v_assets || v_key;
      end if;
    end loop;
    if v_unit.stage not in ('rejected', 'failed') then
      perform mdame.set_unit_stage(v_unit.id, 'failed', 'aborted by operator: ' || v_reason);
      v_cancelled := v_cancelled + 1;
    end if;
  end loop;
  update mdame.run_dimensions set status = 'failed', updated_at = now() where run_id = p_run_id and status = 'ingesting';
  perform mdame.cancel_queued_ingest(p_run_id);

  update mdame.pipeline_runs set status = 'rolled_back', error = 'aborted: ' || v_reason, finished_at = now(), updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.log_event(p_run_id, null, null, 'run_rolled_back', jsonb_build_object('reason', v_reason, 'cancelled_units', v_cancelled));
  return jsonb_build_object('run', to_jsonb(v_run), 'cancelled_units', v_cancelled,
                            'released_assets', to_jsonb(array(select distinct unnest(v_assets))));
end;
$$;
