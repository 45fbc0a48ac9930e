-- The one rule for who a worker job belongs to, held by every RPC a worker reaches a job through
-- (complete_visual_job, complete_render_job, fail_worker_job, extend_worker_job): a render job
-- belongs to its unit, a visual_generation job to one scene of its unit (scene_id and scene_index).
-- Whatever else the message names (run_id, dimension_id) must be the unit's too. A message that
-- belongs to another unit or scene is refused with MDS01, before anything is changed.

create or replace function mdame.assert_worker_job_owner(p_queue text, p_msg_id bigint, p_payload jsonb, p_unit_id uuid, p_scene_id uuid default null::uuid)
returns void
language plpgsql
stable
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_scene mdame.scenes;
begin
  if p_queue = 'visual_generation' and p_scene_id is null then
    raise exception 'a visual_generation job belongs to a scene: name the scene (scene_id)' using errcode = '22023';
  elsif p_queue = 'render' and p_scene_id is not null then
    raise exception 'a render job belongs to a unit, not to a scene' using errcode = '22023';
  elsif p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id;
  if p_payload->>'unit_id' is distinct from p_unit_id::text
     or (p_payload ? 'run_id' and p_payload->>'run_id' is distinct from v_unit.run_id::text)
     or (p_payload ? 'dimension_id' and p_payload->>'dimension_id' is distinct from v_unit.dimension_id) then
    raise exception '% message % is the job of unit % (run %), not of unit %', p_queue, p_msg_id,
      left(coalesce(p_payload->>'unit_id', 'none'), 64), left(coalesce(p_payload->>'run_id', 'none'), 64), p_unit_id
      using errcode = 'MDS01';
  end if;
  if p_queue = 'render' then
    return;
  end if;
  select * into v_scene from mdame.scenes where id = p_scene_id;
  if v_scene.unit_id is distinct from p_unit_id
     or p_payload->>'scene_id' is distinct from p_scene_id::text
     or p_payload->>'scene_index' is distinct from v_scene.scene_index::text then
    raise exception 'visual_generation message % is the job of scene % (index %) of unit %, not of scene % (index %)', p_msg_id,
      left(coalesce(p_payload->>'scene_id', 'none'), 64), left(coalesce(p_payload->>'scene_index', 'none'), 64),
      left(coalesce(p_payload->>'unit_id', 'none'), 64), p_scene_id, coalesce(v_scene.scene_index::text, 'none')
      using errcode = 'MDS01';
  end if;
end;
$$;

comment on function mdame.assert_worker_job_owner(text,bigint,jsonb,uuid,uuid) is 'internal: the owner check of a worker job message, inside the worker RPCs';
