-- The one retry rule for every queue: a retriable failure under the stage's attempt limit makes the
-- message visible again after a backoff that grows with each read; anything else is dead-lettered
-- with its payload and last error, archived, and fails its unit explicitly. Returns retry|dead_letter.

create or replace function mdame.retry_or_dead_letter(p_queue text, p_stage text, p_msg_id bigint, p_read_ct integer, p_payload jsonb, p_unit_id uuid, p_run_id uuid, p_error text, p_retriable boolean)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_policy mdame.stage_policies;
begin
  select * into v_policy from mdame.stage_policies where stage = p_stage;
  if p_unit_id is not null then
    update mdame.work_units set stage_attempts = p_read_ct, error = p_error, updated_at = now() where id = p_unit_id;
  end if;
  if p_retriable and p_read_ct < v_policy.max_attempts then
    perform pgmq.set_vt(p_queue, p_msg_id, v_policy.retry_backoff_s * p_read_ct);
    perform mdame.log_event(p_run_id, p_unit_id, p_stage, 'retry_scheduled', jsonb_build_object('attempt', p_read_ct, 'error', p_error));
    return 'retry';
  end if;
  insert into mdame.dead_letters (queue_name, msg_id, read_ct, payload, last_error, unit_id)
  values (p_queue, p_msg_id, p_read_ct, p_payload, p_error, p_unit_id)
  on conflict (queue_name, msg_id) do nothing;
  perform pgmq.archive(p_queue, p_msg_id);
  if p_unit_id is not null then
    perform mdame.set_unit_stage(p_unit_id, 'failed', p_stage || ': ' || p_error);
  end if;
  perform mdame.log_event(p_run_id, p_unit_id, p_stage, 'dead_lettered', jsonb_build_object('attempts', p_read_ct, 'error', p_error));
  return 'dead_letter';
end;
$$;

comment on function mdame.retry_or_dead_letter(text,text,bigint,integer,jsonb,uuid,uuid,text,boolean) is 'internal: retry or dead-letter decision of fail_* RPCs';
