-- Locks a unit and reports whether the caller may complete p_stage: the unit must be at that stage
-- and, when the caller names its lease (p_holder, from claim_stage_tasks), still leased to it.
-- A late call (unit past the stage) archives the message; a stale lease (another claim holds the
-- unit now) leaves the message to its new holder.

create or replace function mdame.lock_unit_at_stage(p_unit_id uuid, p_stage text, p_queue text, p_msg_id bigint, p_holder text, out unit mdame.work_units, out at_stage boolean)
returns record
language plpgsql
set search_path = ''
as $$
begin
  select * into unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  at_stage := unit.stage = p_stage;
  if at_stage and p_holder is not null and unit.lease_holder is distinct from p_holder then
    at_stage := false;
    perform mdame.log_event(unit.run_id, unit.id, p_stage, 'stale_lease_refused', jsonb_build_object('caller', p_holder, 'holder', unit.lease_holder));
    return;
  end if;
  if not at_stage and p_msg_id is not null then
    perform pgmq.archive(p_queue, p_msg_id);
  end if;
end;
$$;

comment on function mdame.lock_unit_at_stage(uuid,text,text,bigint,text) is 'internal: the lock-and-guard step of the stage RPCs';
