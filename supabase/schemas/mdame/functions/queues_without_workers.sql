-- For alerting: the worker queues (mdame.worker_queues) with jobs waiting (visible now: never read,
-- or back after a lease ran out) and no live worker, i.e. none that beat within p_stale_after (when
-- null: each worker's own three beat intervals, the rule of mdame.worker_status) and has not
-- stopped. A queue nobody ever pulled is named too. Database clock, as the beats are.

create or replace function mdame.queues_without_workers(p_stale_after interval default null::interval)
returns table(queue_name text, waiting bigint, oldest_waiting_s bigint, workers_known bigint, last_beat_at timestamp with time zone)
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_now timestamp with time zone := clock_timestamp();
  v_queue text;
begin
  if p_stale_after is not null and p_stale_after <= interval '0' then
    raise exception 'p_stale_after must be a positive interval, not %', p_stale_after using errcode = '22023';
  end if;
  for v_queue in select q from mdame.worker_queues() q order by q loop
    if exists (select 1 from mdame.worker_heartbeats h
                where h.queue_name = v_queue and mdame.worker_status(h, v_now, p_stale_after) = 'live') then
      continue;
    end if;
    execute format('select count(*), floor(extract(epoch from $1 - min(q.enqueued_at)))::bigint from pgmq.%I q where q.vt <= $1', 'q_' || v_queue)
       into waiting, oldest_waiting_s using v_now;
    if waiting = 0 then
      continue;
    end if;
    queue_name := v_queue;
    select count(*), max(h.last_beat_at) into workers_known, last_beat_at
      from mdame.worker_heartbeats h where h.queue_name = v_queue;
    return next;
  end loop;
end;
$$;
