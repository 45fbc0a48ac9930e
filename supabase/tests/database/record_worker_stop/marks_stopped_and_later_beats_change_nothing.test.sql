begin;
select plan(5);

delete from mdame.worker_heartbeats;
select mdame.record_worker_heartbeat('render-runner-a-1-x', 'render', 'host-a', 1, 2, 2, 15);
create temp table stopped as select * from mdame.record_worker_stop('render-runner-a-1-x');
select ok((select stopped_at is not null and jobs_held = 0 from stopped), 'a clean stop marks the worker stopped, holding no jobs');
select is((select mdame.worker_status(h, clock_timestamp()) from mdame.worker_heartbeats h), 'stopped', 'its status is stopped');

select is((select stopped_at from mdame.record_worker_stop('render-runner-a-1-x')), (select stopped_at from stopped),
          'a repeated stop returns the row unchanged');
select is((select concat_ws(' ', jobs_held, stopped_at) from mdame.record_worker_heartbeat('render-runner-a-1-x', 'render', 'host-a', 1, 2, 1, 15)),
          (select concat_ws(' ', jobs_held, stopped_at) from stopped), 'a late beat after the stop changes nothing');
select throws_ok($$select mdame.record_worker_stop('never-beat')$$, 'MDN01', null, 'a worker that never beat cannot stop');

select * from finish();
rollback;
