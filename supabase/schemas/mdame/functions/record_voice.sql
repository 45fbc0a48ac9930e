-- p_scene_first_words: the index of each scene's first word in the synthesised words, in scene order.

create or replace function mdame.record_voice(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_voice jsonb, p_scene_first_words jsonb, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'media', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  if (v_lock.unit).voice is not null then
    perform pgmq.archive('stage_tasks', p_msg_id);
    return v_lock.unit;
  end if;
  update mdame.work_units set voice = p_voice, updated_at = now() where id = p_unit_id;
  update mdame.scenes s set first_word = (p_scene_first_words->>s.scene_index)::integer
   where s.unit_id = p_unit_id and p_scene_first_words->>s.scene_index is not null;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('voice', p_voice, 'scene_first_words', p_scene_first_words));
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.log_event((v_lock.unit).run_id, p_unit_id, 'voice', 'voice_recorded',
    jsonb_build_object('provider', p_voice->>'provider', 'duration_ms', p_voice->'duration_ms'));
  return mdame.enqueue_render_if_ready(p_unit_id);
end;
$$;
