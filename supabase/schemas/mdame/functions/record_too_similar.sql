-- The plan stage found the unit's script too similar to a video the dimension published
-- (docs/reference/similarity.md). While the unit has been regenerated fewer than
-- p_max_regenerations times, it goes back to the script stage (its next tasks carry the count, so
-- their step tokens are new: mdame.enqueue_stage_task); after that it is rejected with the reason
-- too_similar and the figures. The count lives on the unit, so a rerun resumes and never loops.

create or replace function mdame.record_too_similar(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_check jsonb, p_max_regenerations integer, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_done integer;
  v_action text;
  v_closest jsonb := p_check->'closest';
begin
  if jsonb_typeof(p_check) is distinct from 'object' or p_check->>'verdict' is distinct from 'too_similar'
     or jsonb_typeof(v_closest) is distinct from 'object' or jsonb_typeof(v_closest->'figures'->'combined') is distinct from 'number' then
    raise exception 'a too_similar check names the closest video and its figures' using errcode = 'MDS01';
  end if;
  if p_max_regenerations is null or p_max_regenerations < 0 or p_max_regenerations > 3 then
    raise exception 'max_regenerations must be 0 to 3, not %', p_max_regenerations using errcode = 'MDS01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'plan', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  select count(*)::integer into v_done
    from jsonb_array_elements(coalesce((v_lock.unit).similarity->'checks', '[]'::jsonb)) c
   where c->>'action' = 'regenerated';
  v_action := case when v_done < p_max_regenerations then 'regenerated' else 'rejected' end;
  perform mdame.record_similarity_check(p_unit_id, p_check, v_action);
  perform mdame.store_step_result(p_step_token, jsonb_build_object('too_similar', p_check, 'action', v_action));
  perform pgmq.archive('stage_tasks', p_msg_id);
  if v_action = 'regenerated' then
    v_unit := mdame.set_unit_stage(p_unit_id, 'script');
    perform mdame.enqueue_stage_task('script', v_unit.run_id, p_unit_id);
    return v_unit;
  end if;
  v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', format('too_similar: %s to "%s" (script %s, hook %s, title %s, scenes %s) after %s regeneration(s)',
    v_closest->'figures'->>'combined', left(v_closest->>'title', 90), v_closest->'figures'->>'script', v_closest->'figures'->>'hook',
    v_closest->'figures'->>'title', v_closest->'figures'->>'scenes', v_done));
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
