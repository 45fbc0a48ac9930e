-- Enqueues a stage task and wakes the stage runner only when it may be idle: when no other stage
-- task is visible. Visible work means a tick was woken for it and drains the queue before it ends
-- (a pass loops until a claim comes back empty, and a tick out of time wakes its successor); a wake
-- lost in between (a full set of ticks, a failed request) is covered by the minutely mdame-tick and
-- by any tick woken meanwhile, both of which look for visible work themselves. A unit's task carries
-- `regeneration` once the channel-standing guard sent the unit back to its script (mdame.record_too_similar),
-- so each pass through the stages has step tokens of its own.

create or replace function mdame.enqueue_stage_task(p_stage text, p_run_id uuid, p_unit_id uuid, p_dimension_id text default null::text)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_owner text := coalesce(p_unit_id::text, p_run_id::text || ':' || p_dimension_id);
  v_message jsonb;
  v_msg_id bigint;
  v_first_vt timestamptz;
  v_regeneration integer;
begin
  select nullif(count(*), 0)::integer into v_regeneration
    from mdame.work_units u, jsonb_array_elements(coalesce(u.similarity->'checks', '[]'::jsonb)) c
   where u.id = p_unit_id and c->>'action' = 'regenerated';
  v_message := jsonb_strip_nulls(jsonb_build_object(
    'stage', p_stage, 'run_id', p_run_id, 'unit_id', p_unit_id, 'dimension_id', p_dimension_id, 'regeneration', v_regeneration));
  v_message := v_message || jsonb_build_object('step_token', mdame.step_token(v_owner, mdame.stage_index(p_stage), v_message));
  select q.vt into v_first_vt from pgmq.q_stage_tasks q order by q.vt limit 1;
  insert into pgmq.q_stage_tasks (vt, message) values (clock_timestamp(), v_message) returning msg_id into v_msg_id;
  if v_first_vt is null or v_first_vt > clock_timestamp() then
    perform mdame.wake_stage_runner(p_stage);
  end if;
  return v_msg_id;
end;
$$;

comment on function mdame.enqueue_stage_task(text,uuid,uuid,text) is 'internal: sends a stage task without any stage guard';
