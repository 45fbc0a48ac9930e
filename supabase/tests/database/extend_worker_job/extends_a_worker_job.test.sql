begin;
select plan(3);

delete from pgmq.q_render;
create temp table m as select pgmq.send('render', '{"probe": true}'::jsonb) as msg_id;
create temp table r as select * from pgmq.read('render', 5, 1);

select is((select count(*) from mdame.extend_worker_job('render', (select msg_id from m), 600)), 1::bigint,
          'a worker''s heartbeat on its job answers with the job');
select ok((select vt > now() + interval '599 seconds' from pgmq.q_render where msg_id = (select msg_id from m)),
          'which stays hidden for the new timeout');
select pgmq.archive('render', (select msg_id from m));
select is((select count(*) from mdame.extend_worker_job('render', (select msg_id from m), 600)), 0::bigint,
          'a heartbeat on a job already completed answers with nothing (the worker stops working on it)');

select * from finish();
rollback;
