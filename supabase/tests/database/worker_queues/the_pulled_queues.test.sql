begin;
select plan(2);

select set_eq($$select mdame.worker_queues()$$, array['render', 'visual_generation'], 'the gpu-worker''s and the render-runner''s queues');
select is((select count(*)::int from mdame.worker_queues() q where q not in (select queue_name from pgmq.meta)), 0,
          'each is a pgmq queue');

select * from finish();
rollback;
