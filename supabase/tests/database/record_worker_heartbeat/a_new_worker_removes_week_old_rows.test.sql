begin;
select plan(3);

delete from mdame.worker_heartbeats;
insert into mdame.worker_heartbeats (worker_id, queue_name, host, pid, concurrency, jobs_held, beat_interval_s, started_at, last_beat_at)
values ('gone-long-ago', 'render', 'old-host', 9, 1, 0, 15, clock_timestamp() - interval '9 days', clock_timestamp() - interval '8 days'),
       ('gone-yesterday', 'render', 'old-host', 10, 1, 0, 15, clock_timestamp() - interval '2 days', clock_timestamp() - interval '1 day');

select mdame.record_worker_heartbeat('fresh', 'render', 'new-host', 11, 1, 0, 15);
select is((select count(*)::int from mdame.worker_heartbeats where worker_id = 'gone-long-ago'), 0,
          'a worker silent for more than seven days is removed when a new one starts');
select is((select count(*)::int from mdame.worker_heartbeats where worker_id = 'gone-yesterday'), 1, 'one silent for a day stays');
select is((select count(*)::int from mdame.worker_heartbeats where worker_id = 'fresh'), 1, 'the new worker is recorded');

select * from finish();
rollback;
