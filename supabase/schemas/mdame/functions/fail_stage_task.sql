-- A failed stage task: retried after the backoff while attempts remain, else dead-lettered (its
-- unit fails; for an ingest task, the run's dimension fails). A caller naming a claim that is no
-- longer current gets 'stale' and changes nothing; a task that is gone, or whose unit is over, 'gone'.

create or replace function mdame.fail_stage_task(p_msg_id bigint, p_stage text, p_unit_id uuid, p_run_id uuid, p_dimension_id text, p_error text, p_retriable boolean, p_holder text default null::text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_msg record;
  v_unit mdame.work_units;
  v_outcome text;
begin
  if p_unit_id is not null then
    select * into v_unit from mdame.work_units where id = p_unit_id for update;
  end if;
  select msg_id, read_ct, message into v_msg from pgmq.q_stage_tasks where msg_id = p_msg_id for update;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  if v_unit.stage in ('published', 'deferred', 'rejected', 'failed') then
    perform mdame.archive_stage_task(p_msg_id);
    return 'gone';
  end if;
  if p_holder is not null and (not mdame.holds_stage_claim(p_holder, p_msg_id, v_msg.read_ct)
                               or (v_unit.id is not null and v_unit.lease_holder is distinct from p_holder)) then
    return 'stale';
  end if;
  v_outcome := mdame.retry_or_dead_letter('stage_tasks', p_stage, p_msg_id, v_msg.read_ct, v_msg.message,
                                          p_unit_id, p_run_id, p_error, p_retriable);
  if v_outcome = 'dead_letter' and p_unit_id is null and p_dimension_id is not null then
    update mdame.run_dimensions set status = 'failed', updated_at = now()
     where run_id = p_run_id and dimension_id = p_dimension_id and status = 'ingesting';
  end if;
  if v_outcome = 'dead_letter' and p_run_id is not null then
    perform mdame.close_run_if_done(p_run_id);
  end if;
  return v_outcome;
end;
$$;
