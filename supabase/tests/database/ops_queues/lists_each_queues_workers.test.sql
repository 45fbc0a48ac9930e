begin;
select plan(5);

delete from mdame.worker_heartbeats;
select mdame.record_worker_heartbeat('render-a', 'render', 'host-a', 11, 2, 2, 15);
select mdame.record_worker_heartbeat('render-b', 'render', 'host-b', 12, 2, 1, 15);
select mdame.record_worker_heartbeat('render-old', 'render', 'host-c', 13, 1, 0, 15);
update mdame.worker_heartbeats set last_beat_at = clock_timestamp() - interval '2 days' where worker_id = 'render-old';
select mdame.record_worker_heartbeat('gpu-a', 'visual_generation', 'host-a', 14, 1, 1, 15);
update mdame.worker_heartbeats set last_beat_at = clock_timestamp() - interval '5 minutes' where worker_id = 'gpu-a';

create temp table q as select mdame.ops_queues() as o;
create temp table render_workers as
  select e->'workers' as w from q, jsonb_array_elements(o->'queues') e where e->>'queue_name' = 'render';

select is((select jsonb_path_query_array(w, '$[*].worker_id') from render_workers), '["render-a", "render-b"]'::jsonb,
          'the render queue lists the workers that beat within a day');
select is((select (w->0) - 'started_at' - 'last_beat_at' - 'last_beat_age_s' from render_workers),
          '{"worker_id": "render-a", "host": "host-a", "pid": 11, "concurrency": 2, "jobs_held": 2, "status": "live"}'::jsonb,
          'each with its host, pid, concurrency, jobs held and status');
select is((select e->'workers'->0->>'status' from q, jsonb_array_elements(o->'queues') e where e->>'queue_name' = 'visual_generation'),
          'stale', 'a worker past three beat intervals is stale');
select ok((select (e->'workers'->0->>'last_beat_age_s')::int >= 300 from q, jsonb_array_elements(o->'queues') e where e->>'queue_name' = 'visual_generation'),
          'and its last beat''s age says since when');
select is((select e->'workers' from q, jsonb_array_elements(o->'queues') e where e->>'queue_name' = 'stage_tasks'), '[]'::jsonb,
          'a queue no pull worker serves lists none');

select * from finish();
rollback;
