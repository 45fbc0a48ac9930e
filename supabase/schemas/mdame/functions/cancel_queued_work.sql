-- Archives every queued message of a unit, in every queue; returns how many.

create or replace function mdame.cancel_queued_work(p_unit_id uuid)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  v_queue text;
  v_ids bigint[];
  v_count integer := 0;
begin
  foreach v_queue in array array['stage_tasks', 'visual_generation', 'render'] loop
    execute format('select coalesce(array_agg(msg_id), ''{}'') from pgmq.%I where message->>''unit_id'' = $1', 'q_' || v_queue)
      into v_ids using p_unit_id::text;
    if cardinality(v_ids) > 0 then
      perform pgmq.archive(v_queue, v_ids);
      v_count := v_count + cardinality(v_ids);
    end if;
  end loop;
  return v_count;
end;
$$;

comment on function mdame.cancel_queued_work(uuid) is 'internal: part of abort_run';
