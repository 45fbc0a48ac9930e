-- The pgmq queues the Bun pull workers serve (gpu-worker: visual_generation, render-runner:
-- render): the queues a worker may beat for, and the ones mdame.queues_without_workers watches.
-- stage_tasks, analytics_fetches and thumbnail_sets are drained by the pipeline Edge Function, not pulled.

create or replace function mdame.worker_queues()
returns setof text
language sql
immutable
set search_path = ''
as $$
  select q from unnest(array['render', 'visual_generation']) q;
$$;

comment on function mdame.worker_queues() is 'internal: the queues the pull workers serve, for record_worker_heartbeat and queues_without_workers';
