-- The one rule for whether a pull worker is at work: 'stopped' once it recorded a clean stop,
-- 'stale' when its last beat is older than p_stale_after (when null: three of its own beat
-- intervals, so one late or lost beat does not make it stale), 'live' otherwise. p_now is the
-- database clock the beats were written with.

create or replace function mdame.worker_status(p_worker mdame.worker_heartbeats, p_now timestamp with time zone, p_stale_after interval default null::interval)
returns text
language sql
immutable
set search_path = ''
as $$
  select case
           when p_worker.stopped_at is not null then 'stopped'
           when p_worker.last_beat_at < p_now - coalesce(p_stale_after, make_interval(secs => 3 * p_worker.beat_interval_s)) then 'stale'
           else 'live'
         end;
$$;

comment on function mdame.worker_status(mdame.worker_heartbeats, timestamp with time zone, interval) is 'internal: the live/stale/stopped rule of ops_queues and queues_without_workers';
