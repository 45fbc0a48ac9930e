-- A pull worker's clean stop, once its in-flight jobs are finished: the row is marked stopped and
-- holds no jobs, so the queues page and mdame.queues_without_workers no longer count it. Unknown
-- worker ids are refused with MDN01; a repeated stop returns the stopped row unchanged.

create or replace function mdame.record_worker_stop(p_worker_id text)
returns mdame.worker_heartbeats
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.worker_heartbeats;
  v_now timestamp with time zone := clock_timestamp();
begin
  select * into v_row from mdame.worker_heartbeats h where h.worker_id = p_worker_id for update;
  if not found then
    raise exception 'no worker % has beaten', left(coalesce(p_worker_id, 'null'), 64) using errcode = 'MDN01';
  elsif v_row.stopped_at is not null then
    return v_row;
  end if;

  update mdame.worker_heartbeats h
     set jobs_held = 0, last_beat_at = v_now, stopped_at = v_now
   where h.worker_id = p_worker_id
  returning * into v_row;
  return v_row;
end;
$$;
