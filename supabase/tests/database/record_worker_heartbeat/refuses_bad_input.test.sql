begin;
select plan(8);

select throws_ok($$select mdame.record_worker_heartbeat('', 'render', 'h', 1, 1, 0, 15)$$, '22023', 'a worker id is 1 to 200 characters', 'an empty id');
select throws_ok($$select mdame.record_worker_heartbeat('w', 'stage_tasks', 'h', 1, 1, 0, 15)$$, '22023',
                 'not a worker queue: stage_tasks (workers pull render, visual_generation)', 'a queue no pull worker serves');
select throws_ok($$select mdame.record_worker_heartbeat('w', 'render', '', 1, 1, 0, 15)$$, '22023', null, 'an empty host');
select throws_ok($$select mdame.record_worker_heartbeat('w', 'render', 'h', 0, 1, 0, 15)$$, '22023', null, 'a pid of 0');
select throws_ok($$select mdame.record_worker_heartbeat('w', 'render', 'h', 1, 0, 0, 15)$$, '22023', null, 'a concurrency of 0');
select throws_ok($$select mdame.record_worker_heartbeat('w', 'render', 'h', 1, 2, 3, 15)$$, '22023',
                 'a worker holds 0 to its concurrency (2) jobs, not 3', 'more jobs than its concurrency');
select throws_ok($$select mdame.record_worker_heartbeat('w', 'render', 'h', 1, 1, 0, 0)$$, '22023', null, 'a beat interval of 0');
select is((select count(*)::int from mdame.worker_heartbeats where worker_id = 'w'), 0, 'nothing is recorded');

select * from finish();
rollback;
