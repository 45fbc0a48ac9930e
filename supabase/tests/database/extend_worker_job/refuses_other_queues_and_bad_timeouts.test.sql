begin;
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table m as select pgmq.send('stage_tasks', '{"probe": true}'::jsonb) as msg_id;
create temp table before as select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m);

select throws_ok(format('select * from mdame.extend_worker_job(%L, %s, 600)', 'stage_tasks', (select msg_id from m)), '22023', null,
                 'the stage queue is not a worker queue: its claims are extended by extend_stage_lease, which checks the holder');
select is((select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m)), (select vt from before), 'its task is untouched');
select throws_ok($$ select * from mdame.extend_worker_job('render', 1, 0) $$, '22023', null, 'a timeout under a second is refused');
select throws_ok($$ select * from mdame.extend_worker_job('render', 1, 86401) $$, '22023', null, 'a timeout over a day is refused');

select * from finish();
rollback;
