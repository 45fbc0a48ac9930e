create or replace function mdame.record_script(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_script jsonb, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'script', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set script = p_script where id = p_unit_id;
  perform mdame.store_step_result(p_step_token, p_script);
  v_unit := mdame.set_unit_stage(p_unit_id, 'safety');
  perform mdame.enqueue_stage_task('safety', v_unit.run_id, p_unit_id);
  perform pgmq.archive('stage_tasks', p_msg_id);
  return v_unit;
end;
$$;
