create or replace function mdame.cancel_queued_ingest(p_run_id uuid)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_ids bigint[];
begin
  select coalesce(array_agg(msg_id), '{}') into v_ids from pgmq.q_stage_tasks
   where message->>'run_id' = p_run_id::text and message->>'stage' = 'ingest';
  if cardinality(v_ids) > 0 then
    perform pgmq.archive('stage_tasks', v_ids);
  end if;
end;
$$;

comment on function mdame.cancel_queued_ingest(uuid) is 'internal: part of the ingest transitions';
