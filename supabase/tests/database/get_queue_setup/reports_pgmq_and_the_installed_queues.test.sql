begin;
select plan(4);

-- As the engine role, which has no usage on schema pgmq: the reason this RPC exists.
-- It may create no temporary table either: it fills the ones the test made for it.
create temp table engine_queues as select * from mdame.get_queue_setup(array[]::text[]) with no data;
create temp table some_missing as select * from engine_queues with no data;
grant insert on engine_queues, some_missing to mdame_engine;
set local role mdame_engine;
insert into engine_queues select * from mdame.get_queue_setup(array['render', 'stage_tasks', 'visual_generation']);
insert into some_missing select * from mdame.get_queue_setup(array['stage_tasks', 'no_such_queue', 'render']);
reset role;

select is((select send from engine_queues), true, 'the engine role learns that pgmq is installed');
select is((select queues from engine_queues), array['render', 'stage_tasks', 'visual_generation'],
          'and that every engine queue exists, in the order asked');
select is((select queues from some_missing), array['stage_tasks', 'render'], 'a queue that does not exist is left out');
select is((select count(*) from engine_queues), 1::bigint, 'the answer is one row');

select * from finish();
rollback;
