-- The stored result of p_step_token when that step already completed, or null (and nothing
-- changes) when it did not. A completed step's message is archived while it is still the caller's
-- claim: queued, carrying that token, and not read again since p_holder (<worker>/<msg_id>/<read_ct>,
-- from claim_stage_tasks) was handed out; a newer claim archives it itself when it asks.
--
-- The row a completion RPC locks first (the unit, or the run's dimension for ingest) is locked here
-- too, in the same order as those RPCs: a completion of the same step still in flight is waited for,
-- so its result is returned rather than the step being run a second time.

create or replace function mdame.replay_step_result(p_msg_id bigint, p_step_token text, p_holder text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_message jsonb;
  v_read_ct integer;
  v_result jsonb;
begin
  -- A message's payload never changes once sent: read unlocked, only to learn which row to lock.
  select q.message into v_message from pgmq.q_stage_tasks q where q.msg_id = p_msg_id;
  if v_message ? 'unit_id' then
    perform 1 from mdame.work_units u where u.id = (v_message->>'unit_id')::uuid for update;
  elsif v_message ? 'dimension_id' then
    perform 1 from mdame.run_dimensions d
      where d.run_id = (v_message->>'run_id')::uuid and d.dimension_id = v_message->>'dimension_id'
      for update;
  end if;
  select q.read_ct, q.message into v_read_ct, v_message from pgmq.q_stage_tasks q where q.msg_id = p_msg_id for update;

  select r.result into v_result from mdame.step_results r where r.step_token = p_step_token;
  if not found then
    return null;
  end if;

  if v_read_ct is not null
     and v_message->>'step_token' = p_step_token
     and mdame.holds_stage_claim(p_holder, p_msg_id, v_read_ct) then
    perform mdame.archive_stage_task(p_msg_id);
    perform mdame.log_event((v_message->>'run_id')::uuid, (v_message->>'unit_id')::uuid, v_message->>'stage', 'step_replayed',
      jsonb_build_object('msg_id', p_msg_id, 'step_token', p_step_token));
  end if;
  return v_result;
end;
$$;
