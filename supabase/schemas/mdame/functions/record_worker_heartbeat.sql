-- A pull worker's beat (shared/worker/worker-heartbeat.ts): at start and every beat interval after,
-- with the jobs it holds. The first beat of a worker id inserts its row, and removes the rows of
-- workers silent for more than seven days (bounded growth: a fleet's restarts leave one row each).
-- Later beats move last_beat_at and jobs_held. A worker id belongs to one process: a beat naming
-- another host, pid or queue than the row's is refused with MDS01; a beat after the worker's clean
-- stop (a late one, in flight while it stopped) returns the stopped row unchanged.

create or replace function mdame.record_worker_heartbeat(p_worker_id text, p_queue text, p_host text, p_pid integer, p_concurrency integer, p_jobs_held integer, p_beat_interval_s integer)
returns mdame.worker_heartbeats
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.worker_heartbeats;
  v_now timestamp with time zone := clock_timestamp();
begin
  if coalesce(length(p_worker_id), 0) not between 1 and 200 then
    raise exception 'a worker id is 1 to 200 characters' using errcode = '22023';
  elsif p_queue is null or p_queue not in (select mdame.worker_queues()) then
    raise exception 'not a worker queue: % (workers pull %)', left(coalesce(p_queue, 'null'), 64),
      (select string_agg(q, ', ') from mdame.worker_queues() q) using errcode = '22023';
  elsif coalesce(length(p_host), 0) not between 1 and 255 then
    raise exception 'a worker''s host is 1 to 255 characters' using errcode = '22023';
  elsif coalesce(p_pid, 0) <= 0 then
    raise exception 'a worker''s pid is a positive integer' using errcode = '22023';
  elsif coalesce(p_concurrency, 0) not between 1 and 1000 then
    raise exception 'a worker''s concurrency is 1 to 1000, not %', p_concurrency using errcode = '22023';
  elsif p_jobs_held is null or p_jobs_held not between 0 and p_concurrency then
    raise exception 'a worker holds 0 to its concurrency (%) jobs, not %', p_concurrency, p_jobs_held using errcode = '22023';
  elsif coalesce(p_beat_interval_s, 0) not between 1 and 3600 then
    raise exception 'a worker''s beat interval is 1 to 3600 seconds, not %', p_beat_interval_s using errcode = '22023';
  end if;

  select * into v_row from mdame.worker_heartbeats h where h.worker_id = p_worker_id for update;
  if not found then
    insert into mdame.worker_heartbeats as h (worker_id, queue_name, host, pid, concurrency, jobs_held, beat_interval_s, started_at, last_beat_at)
    values (p_worker_id, p_queue, p_host, p_pid, p_concurrency, p_jobs_held, p_beat_interval_s, v_now, v_now)
    on conflict (worker_id) do nothing
    returning * into v_row;
    if v_row.worker_id is not null then
      delete from mdame.worker_heartbeats h where h.last_beat_at < v_now - interval '7 days';
      return v_row;
    end if;
    -- Another session inserted the same id meanwhile: the guards below judge it.
    select * into v_row from mdame.worker_heartbeats h where h.worker_id = p_worker_id for update;
  end if;

  if v_row.host <> p_host or v_row.pid <> p_pid or v_row.queue_name <> p_queue then
    raise exception 'worker id % is held by pid % on % (queue %): give each worker process its own id',
      left(p_worker_id, 64), v_row.pid, left(v_row.host, 64), v_row.queue_name using errcode = 'MDS01';
  elsif v_row.stopped_at is not null then
    return v_row;
  end if;

  update mdame.worker_heartbeats h
     set concurrency = p_concurrency, jobs_held = p_jobs_held, beat_interval_s = p_beat_interval_s, last_beat_at = v_now
   where h.worker_id = p_worker_id
  returning * into v_row;
  return v_row;
end;
$$;
