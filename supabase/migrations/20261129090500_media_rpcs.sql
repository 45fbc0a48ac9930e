-- Visual generation and render completions, reported by the Bun workers through worker-callback.

create function mdame.lookup_scene_cache(p_scene_hash text)
returns text
language sql
stable
set search_path = ''
as $$
  select asset_key from mdame.scene_cache where scene_hash = p_scene_hash;
$$;

-- Records a webhook delivery; false when that webhook-id was already seen (a replay).
create function mdame.record_webhook(p_webhook_id text, p_kind text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  insert into mdame.webhook_receipts (webhook_id, kind) values (p_webhook_id, p_kind) on conflict do nothing;
  return found;
end;
$$;

-- The render job of a unit, built from its stored voice and scenes; the same state always gives the
-- same message (and so the same step token).
create function mdame.render_job(p_unit_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_job jsonb;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id;
  v_job := jsonb_build_object(
    'run_id', v_unit.run_id, 'unit_id', v_unit.id, 'dimension_id', v_unit.dimension_id,
    'title', v_unit.script->>'title',
    'audio_key', v_unit.voice->>'audio_key', 'audio_duration_ms', (v_unit.voice->>'duration_ms')::integer,
    'words', v_unit.voice->'words',
    'scenes', (select jsonb_agg(jsonb_build_object('index', s.scene_index, 'asset_key', s.asset_key, 'first_word', s.first_word) order by s.scene_index)
                 from mdame.scenes s where s.unit_id = p_unit_id),
    'caption_font', coalesce((select d.style->>'caption_font' from mdame.dimensions d where d.id = v_unit.dimension_id), 'DejaVu Sans'));
  return v_job || jsonb_build_object('step_token', mdame.step_token(v_unit.id::text, mdame.stage_index('render'), v_job));
end;
$$;

-- When the voice and every scene are ready, enqueue the one render job and move the unit to render.
create function mdame.enqueue_render_if_ready(p_unit_id uuid)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if v_unit.stage <> 'media' or v_unit.voice is null
     or not exists (select 1 from mdame.scenes where unit_id = p_unit_id)
     or exists (select 1 from mdame.scenes where unit_id = p_unit_id and status <> 'ready') then
    return v_unit;
  end if;
  perform pgmq.send('render', mdame.render_job(p_unit_id));
  return mdame.set_unit_stage(p_unit_id, 'render');
end;
$$;

create function mdame.complete_visual_job(p_msg_id bigint, p_scene_id uuid, p_scene_hash text, p_asset_key text, p_backend text, p_cache_hit boolean, p_webhook_id text)
returns mdame.scenes
language plpgsql
set search_path = ''
as $$
declare
  v_scene mdame.scenes;
  v_unit mdame.work_units;
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
    raise exception 'scene % has hash %, the callback reported %', p_scene_id, v_scene.scene_hash, p_scene_hash using errcode = 'MDS01';
  end if;
  perform pgmq.archive('visual_generation', p_msg_id);
  insert into mdame.scene_cache (scene_hash, asset_key, backend) values (p_scene_hash, p_asset_key, p_backend)
  on conflict (scene_hash) do nothing;
  if v_scene.status = 'ready' or v_unit.stage <> 'media' then
    return v_scene;
  end if;
  update mdame.scenes set status = 'ready', asset_key = p_asset_key, cache_hit = p_cache_hit, updated_at = now()
   where id = p_scene_id
  returning * into v_scene;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'visual_generation', 'scene_ready',
    jsonb_build_object('scene_index', v_scene.scene_index, 'cache_hit', p_cache_hit, 'backend', p_backend));
  perform mdame.enqueue_render_if_ready(v_unit.id);
  return v_scene;
end;
$$;

create function mdame.complete_render_job(p_msg_id bigint, p_unit_id uuid, p_video jsonb, p_webhook_id text)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'render', 'render', p_msg_id, null);
  if not mdame.record_webhook(p_webhook_id, 'render.completed') or not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set video = p_video where id = p_unit_id;
  perform pgmq.archive('render', p_msg_id);
  v_unit := mdame.set_unit_stage(p_unit_id, 'publish');
  perform mdame.enqueue_stage_task('publish', v_unit.run_id, p_unit_id);
  return v_unit;
end;
$$;

-- A worker reported a failed job: retried after the backoff while attempts remain, else the
-- message is dead-lettered and the unit fails.
create function mdame.fail_worker_job(p_queue text, p_msg_id bigint, p_unit_id uuid, p_error text, p_retriable boolean, p_webhook_id text)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_msg record;
  v_unit mdame.work_units;
  v_outcome text;
begin
  if p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', p_queue using errcode = 'MDS01';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if not mdame.record_webhook(p_webhook_id, p_queue || '.failed') then
    return 'duplicate';
  end if;
  execute format('select msg_id, read_ct, message from pgmq.%I where msg_id = $1 for update', 'q_' || p_queue) into v_msg using p_msg_id;
  if v_msg.msg_id is null or v_unit.stage in ('published', 'rejected', 'failed') then
    return 'gone';
  end if;
  v_outcome := mdame.retry_or_dead_letter(p_queue, p_queue, p_msg_id, v_msg.read_ct, v_msg.message,
                                          p_unit_id, v_unit.run_id, p_error, p_retriable);
  if v_outcome = 'dead_letter' then
    perform mdame.close_run_if_done(v_unit.run_id);
  end if;
  return v_outcome;
end;
$$;
