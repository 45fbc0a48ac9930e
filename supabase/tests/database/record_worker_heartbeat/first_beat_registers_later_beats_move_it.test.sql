begin;
select plan(6);

delete from mdame.worker_heartbeats;
create temp table first as select * from mdame.record_worker_heartbeat('render-runner-a-1-x', 'render', 'host-a', 101, 2, 0, 15);
select is((select concat_ws(' ', queue_name, host, pid, concurrency, jobs_held, beat_interval_s) from first),
          'render host-a 101 2 0 15', 'the first beat registers the worker with its queue, host, pid and sizing');
select ok((select started_at = last_beat_at and stopped_at is null from first), 'it starts now and has not stopped');

-- Back-date the row so the next beat visibly moves it.
update mdame.worker_heartbeats set last_beat_at = last_beat_at - interval '1 minute', started_at = started_at - interval '1 minute';
create temp table second as select * from mdame.record_worker_heartbeat('render-runner-a-1-x', 'render', 'host-a', 101, 2, 2, 15);
select is((select jobs_held from second), 2, 'a later beat records the jobs the worker holds');
select ok((select last_beat_at > started_at + interval '59 seconds' from second), 'and moves its last beat, keeping its start');
select is((select count(*)::int from mdame.worker_heartbeats), 1, 'one row per worker');

create temp table other as select * from mdame.record_worker_heartbeat('render-runner-b-7-y', 'render', 'host-b', 101, 1, 1, 15);
select is((select count(*)::int from mdame.worker_heartbeats where queue_name = 'render'), 2,
          'two workers on two machines share a queue, even with the same pid');

select * from finish();
rollback;
