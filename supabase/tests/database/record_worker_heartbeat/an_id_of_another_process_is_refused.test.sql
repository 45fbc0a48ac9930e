begin;
select plan(3);

delete from mdame.worker_heartbeats;
select mdame.record_worker_heartbeat('gpu-worker-a-5-x', 'visual_generation', 'host-a', 5, 1, 0, 15);
select throws_ok($$select mdame.record_worker_heartbeat('gpu-worker-a-5-x', 'visual_generation', 'host-b', 5, 1, 0, 15)$$,
                 'MDS01', null, 'the same id beating from another host is refused');
select throws_ok($$select mdame.record_worker_heartbeat('gpu-worker-a-5-x', 'visual_generation', 'host-a', 6, 1, 0, 15)$$,
                 'MDS01', null, 'or from another pid');
select throws_ok($$select mdame.record_worker_heartbeat('gpu-worker-a-5-x', 'render', 'host-a', 5, 1, 0, 15)$$,
                 'MDS01', null, 'or for another queue');

select * from finish();
rollback;
