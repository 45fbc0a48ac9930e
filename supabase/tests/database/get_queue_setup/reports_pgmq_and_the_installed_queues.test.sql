begin;
select plan(4);

-- As the engine role, which has no usage on schema pgmq: the reason this RPC exists.
set local role mdame_engine;
create temp table engine_queues as select * from mdame.get_queue_setup(array['render', 'stage_tasks', 'visual_generation']);
create temp table some_missing as select * from mdame.get_queue_setup(array['stage_tasks', 'no_such_queue', 'render']);
reset role;

select is((select send from engine_queues), true, 'the engine role learns that pgmq is installed');
select is((select queues from engine_queues), array['render', 'stage_tasks', 'visual_generation'],
          'and that every engine queue exists, in the order asked');
select is((select queues from some_missing), array['stage_tasks', 'render'], 'a queue that does not exist is left out');
select is((select count(*) from engine_queues), 1::bigint, 'the answer is one row');

select * from finish();
rollback;
