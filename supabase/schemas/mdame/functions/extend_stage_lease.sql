-- A heartbeat: extends the claim by p_vt_s seconds from now, only while it is still the caller's:
-- the message has not been read again since (the holder names its read count) and the unit, when
-- there is one, is leased to the caller. False otherwise, and nothing changes.

create or replace function mdame.extend_stage_lease(p_msg_id bigint, p_holder text, p_vt_s integer)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_msg record;
  v_vt timestamptz := clock_timestamp() + make_interval(secs => p_vt_s);
begin
  select q.read_ct, q.message into v_msg from pgmq.q_stage_tasks q where q.msg_id = p_msg_id for update;
  if not found or not mdame.holds_stage_claim(p_holder, p_msg_id, v_msg.read_ct) then
    return false;
  end if;
  if v_msg.message ? 'unit_id' then
    update mdame.work_units set lease_expires_at = v_vt
     where id = (v_msg.message->>'unit_id')::uuid and lease_holder = p_holder;
    if not found then
      return false;
    end if;
  end if;
  update pgmq.q_stage_tasks set vt = v_vt where msg_id = p_msg_id;
  return true;
end;
$$;
