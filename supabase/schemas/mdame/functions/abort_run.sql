-- Operator abort: cancels the run's pending work, fails its unpublished units, and queues in the
-- deletion outbox (mdame.queue_storage_deletions) the voice tracks (with their word timings, of
-- every provider's extension) and videos of the units it failed, marked deleted on the unit as
-- housekeeping marks them, so nothing else using a key loses it (mdame.storage_key_in_use); returns
-- the keys queued, for the caller to drain at once. Published units are left as they are, and so is
-- a unit one of whose publications is already out (published or uploading): it keeps its assets and
-- finishes its other platforms. An already-terminal run is returned unchanged.

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
  v_voices text[] := '{}';
  v_videos text[] := '{}';
  v_kept integer := 0;
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
    if exists (select 1 from mdame.publications p where p.unit_id = v_unit.id and p.status in ('published', 'uploading')) then
      v_kept := v_kept + 1;
      continue;
    end if;
    perform mdame.cancel_queued_work(v_unit.id);
    -- Its publications not yet out go with it (none is uploading or published: see above).
    update mdame.publications p set status = 'failed', updated_at = now()
     where p.unit_id = v_unit.id and p.status in ('pending', 'deferred');
    if v_unit.stage not in ('rejected', 'failed') then
      perform mdame.set_unit_stage(v_unit.id, 'failed', 'aborted by operator: ' || v_reason);
      v_cancelled := v_cancelled + 1;
    end if;
    v_voices := v_voices || array[v_unit.voice->>'audio_key', regexp_replace(v_unit.voice->>'audio_key', '\.[^./]*$', '') || '.json'];
    v_videos := v_videos || mdame.video_asset_keys(v_unit.video);
    update mdame.work_units u
       set voice = case when u.voice is null or u.voice ? 'deleted_at' then u.voice else u.voice || jsonb_build_object('deleted_at', now()) end,
           video = case when u.video is null or u.video ? 'deleted_at' then u.video else u.video || jsonb_build_object('deleted_at', now()) end
     where u.id = v_unit.id;
  end loop;
  v_assets := array(select distinct k from unnest(v_voices || v_videos) k where k is not null and not mdame.storage_key_in_use(k) order by k);
  perform mdame.queue_storage_deletions(array(select k from unnest(v_voices) k where k = any (v_assets)), 'voice');
  perform mdame.queue_storage_deletions(array(select k from unnest(v_videos) k where k = any (v_assets)), 'render');
  update mdame.run_dimensions set status = 'failed', updated_at = now() where run_id = p_run_id and status = 'ingesting';
  perform mdame.cancel_queued_ingest(p_run_id);

  update mdame.pipeline_runs set status = 'rolled_back', error = 'aborted: ' || v_reason, finished_at = now(), updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.log_event(p_run_id, null, null, 'run_rolled_back',
                          jsonb_build_object('reason', v_reason, 'cancelled_units', v_cancelled, 'kept_units', v_kept, 'released_assets', to_jsonb(v_assets)));
  return jsonb_build_object('run', to_jsonb(v_run), 'cancelled_units', v_cancelled, 'released_assets', to_jsonb(v_assets));
end;
$$;
