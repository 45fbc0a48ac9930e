-- Which backend made the clip is kept on the scene, so a video's scenes can be told apart.

create or replace function mdame.complete_visual_job(p_msg_id bigint, p_scene_id uuid, p_scene_hash text, p_asset_key text, p_backend text, p_cache_hit boolean, p_webhook_id text)
returns mdame.scenes
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_scene mdame.scenes;
  v_unit mdame.work_units;
  v_queued boolean;
begin
  select * into v_scene from mdame.scenes where id = p_scene_id;
  if not found then
    raise exception 'no scene %', p_scene_id using errcode = 'MDN01';
  end if;
  select * into v_unit from mdame.work_units where id = v_scene.unit_id for update;
  select * into v_scene from mdame.scenes where id = p_scene_id for update;
  if not mdame.record_webhook(p_webhook_id, 'visual_generation.completed') then
    return v_scene;
  end if;
  if v_scene.scene_hash <> p_scene_hash then
    raise exception 'scene % has hash %, the callback reported %', p_scene_id, v_scene.scene_hash, left(p_scene_hash, 64) using errcode = 'MDS01';
  end if;
  v_queued := mdame.assert_worker_message('visual_generation', p_msg_id, v_scene.unit_id, p_scene_id);
  if v_queued then
    perform pgmq.archive('visual_generation', p_msg_id);
  end if;
  -- The worker recorded its entry already (record_scene_asset); this covers a worker that did not.
  insert into mdame.scene_cache (scene_hash, asset_key, backend) values (p_scene_hash, p_asset_key, p_backend)
  on conflict (scene_hash, backend) do nothing;
  if v_scene.status = 'ready' or v_unit.stage <> 'media' then
    return v_scene;
  end if;
  update mdame.scenes set status = 'ready', asset_key = p_asset_key, cache_hit = p_cache_hit, backend = p_backend, updated_at = now()
   where id = p_scene_id
  returning * into v_scene;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'visual_generation', 'scene_ready',
    jsonb_build_object('scene_index', v_scene.scene_index, 'cache_hit', p_cache_hit, 'backend', p_backend));
  perform mdame.enqueue_render_if_ready(v_unit.id);
  return v_scene;
end;
$$;
