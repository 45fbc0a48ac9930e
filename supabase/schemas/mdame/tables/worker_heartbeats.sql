-- The pull workers (gpu-worker, render-runner) that are or were at work: one row per worker
-- process, written by mdame.record_worker_heartbeat when it starts and every beat interval after,
-- and by mdame.record_worker_stop when it stops cleanly. Beats use the database clock, as the ops
-- pages' leases and ages do. A worker that stops beating is stale (mdame.worker_status); rows of
-- workers silent for longer than a week are removed by the next worker that starts.

create table mdame.worker_heartbeats (
  worker_id text not null,
  queue_name text not null,
  host text not null,
  pid integer not null,
  concurrency integer not null,
  jobs_held integer not null default 0,
  beat_interval_s integer not null,
  started_at timestamp with time zone not null default clock_timestamp(),
  last_beat_at timestamp with time zone not null default clock_timestamp(),
  stopped_at timestamp with time zone,
  constraint worker_heartbeats_pkey primary key (worker_id),
  constraint worker_heartbeats_worker_id_check check ((length(worker_id) between 1 and 200)),
  constraint worker_heartbeats_host_check check ((length(host) between 1 and 255)),
  constraint worker_heartbeats_pid_check check ((pid > 0)),
  constraint worker_heartbeats_concurrency_check check ((concurrency between 1 and 1000)),
  constraint worker_heartbeats_jobs_held_check check ((jobs_held between 0 and concurrency)),
  constraint worker_heartbeats_beat_interval_s_check check ((beat_interval_s between 1 and 3600))
);

create index worker_heartbeats_queue_name_idx on mdame.worker_heartbeats using btree (queue_name);
create index worker_heartbeats_last_beat_at_idx on mdame.worker_heartbeats using btree (last_beat_at);

alter table mdame.worker_heartbeats enable row level security;
