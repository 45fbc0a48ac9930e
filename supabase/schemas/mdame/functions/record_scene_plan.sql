-- Stores the scene plan; a scene with a cached clip from one of the dimension's backends (the
-- earliest in its list) is ready at once, the rest become visual_generation jobs carrying the
-- scene's keywords and the dimension's visuals. The voice task is enqueued alongside. p_similarity,
-- when given, is the channel-standing guard's pass ({check, signature}, shared/contracts/similarity.ts):
-- the check is kept on the unit and the signature stored for the units after it.

create or replace function mdame.record_scene_plan(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_scenes jsonb, p_visual jsonb, p_holder text default null::text, p_similarity jsonb default null::jsonb)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_scene jsonb;
  v_scene_id uuid;
  v_cached mdame.scene_cache;
  v_msg_id bigint;
  v_job jsonb;
  v_backends text[];
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'plan', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;
  -- A plan without visuals (made before backend lists) is procedural only.
  v_backends := case when jsonb_typeof(p_visual->'visuals'->'backends') = 'array'
                     then array(select jsonb_array_elements_text(p_visual->'visuals'->'backends'))
                     else array['procedural'] end;

  for v_scene in select value from jsonb_array_elements(p_scenes) order by (value->>'index')::integer loop
    select c.* into v_cached from mdame.scene_cache c
     where c.scene_hash = v_scene->>'scene_hash' and c.backend_name = any (v_backends)
     order by array_position(v_backends, c.backend_name), c.created_at
     limit 1;
    insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit, backend)
    values (p_unit_id, (v_scene->>'index')::integer, v_scene->>'prompt', v_scene->>'narration', (v_scene->>'first_word')::integer,
            (v_scene->>'duration_s')::numeric, v_scene->>'scene_hash',
            case when v_cached.asset_key is null then 'queued' else 'ready' end, v_cached.asset_key, v_cached.asset_key is not null,
            v_cached.backend)
    returning id into v_scene_id;
    if v_cached.asset_key is null then
      v_job := jsonb_build_object(
        'run_id', v_unit.run_id, 'unit_id', p_unit_id, 'scene_id', v_scene_id, 'scene_index', (v_scene->>'index')::integer,
        'scene_hash', v_scene->>'scene_hash', 'dimension_id', v_unit.dimension_id, 'prompt', v_scene->>'prompt',
        'style', p_visual->'style', 'duration_s', (v_scene->>'duration_s')::numeric,
        'width', (p_visual->>'width')::integer, 'height', (p_visual->>'height')::integer, 'fps', (p_visual->>'fps')::integer);
      -- Absent fields stay absent: the job contract's defaults (no keywords, procedural) apply.
      if v_scene ? 'keywords' then
        v_job := v_job || jsonb_build_object('keywords', v_scene->'keywords');
      end if;
      if p_visual ? 'visuals' then
        v_job := v_job || jsonb_build_object('visuals', p_visual->'visuals');
      end if;
      v_job := v_job || jsonb_build_object('step_token', mdame.step_token(v_scene_id::text, mdame.stage_index('visual_generation'), v_job));
      select pgmq.send('visual_generation', v_job) into v_msg_id;
      update mdame.scenes set msg_id = v_msg_id, job = v_job where id = v_scene_id;
    end if;
  end loop;

  if p_similarity is not null then
    perform mdame.record_content_signature(p_unit_id, p_similarity->'signature');
    perform mdame.record_similarity_check(p_unit_id, p_similarity->'check', 'passed');
  end if;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('scenes', p_scenes, 'visual', p_visual));
  v_unit := mdame.set_unit_stage(p_unit_id, 'media');
  perform mdame.enqueue_stage_task('voice', v_unit.run_id, p_unit_id);
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'plan', 'scenes_planned', jsonb_build_object(
    'scenes', jsonb_array_length(p_scenes),
    'cached', (select count(*) from mdame.scenes where unit_id = p_unit_id and cache_hit)));
  return v_unit;
end;
$$;
