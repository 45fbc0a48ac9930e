begin;
select plan(7);

delete from mdame.worker_heartbeats;
delete from pgmq.q_render;
delete from pgmq.q_visual_generation;

select is((select count(*)::int from mdame.queues_without_workers()), 0, 'empty queues need no worker');

select pgmq.send('render', '{"probe": 1}'::jsonb);
select pgmq.send('visual_generation', '{"probe": 2}'::jsonb);
select mdame.record_worker_heartbeat('gpu-a', 'visual_generation', 'host-a', 1, 2, 0, 15);
select mdame.record_worker_heartbeat('render-a', 'render', 'host-a', 2, 2, 0, 15);
select mdame.record_worker_heartbeat('render-b', 'render', 'host-b', 3, 2, 0, 15);
update mdame.worker_heartbeats set last_beat_at = clock_timestamp() - interval '2 minutes' where queue_name = 'render';

create temp table r as select * from mdame.queues_without_workers();
select is((select array_agg(queue_name) from r), array['render'], 'the queue whose workers are all stale while a job waits is named');
select is((select concat_ws(' ', waiting, workers_known) from r), '1 2', 'with its waiting jobs and the workers it had');
select ok((select last_beat_at < clock_timestamp() - interval '119 seconds' from r), 'and when one of them last beat');
select is((select count(*)::int from mdame.queues_without_workers(interval '5 minutes')), 0,
          'a longer stale_after counts those workers as live');

select mdame.record_worker_stop('gpu-a');
select is((select array_agg(queue_name order by queue_name) from mdame.queues_without_workers()), array['render', 'visual_generation'],
          'a queue whose only worker stopped cleanly is named too');
select throws_ok($$select * from mdame.queues_without_workers(interval '0')$$, '22023', null, 'a stale_after that is not positive is refused');

select * from finish();
rollback;
