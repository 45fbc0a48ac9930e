begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
-- pgTAP keeps its state in tables the client roles cannot write, and they may create no temporary
-- table: each call runs under the role into a table made for it, the assertions after `reset role`.
create temp table by_service as select * from mdame.trigger_run('dev', 'manual', current_date, null) with no data;
create temp table by_engine as select * from by_service with no data;
create temp table claimed as select * from mdame.claim_stage_tasks('runner-privileges', 1, 30) with no data;
create temp table ticked as select mdame.tick() as result with no data;
create temp table heartbeat as select * from mdame.extend_stage_lease(0, 'nobody', 60) as extended with no data;
grant insert on by_service to service_role;
grant select, insert on by_engine, claimed, ticked, heartbeat to mdame_engine;

set local role service_role;
insert into by_service select * from mdame.trigger_run('dev', 'manual', current_date, null);
reset role;
select is((select created from by_service), true, 'service_role (the REST API) starts a run through trigger_run');
select cmp_ok(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from by_service))), '>', 0::bigint,
              'whose ingest tasks trigger_run sent into pgmq');

set local role mdame_engine;
insert into by_engine select * from mdame.trigger_run('dev', 'manual', current_date, null);
insert into claimed select * from mdame.claim_stage_tasks('runner-privileges', 1, 30);
insert into ticked select mdame.tick();
reset role;
select is((select run_id from by_engine), (select run_id from by_service), 'the engine role gets the same day''s run back');
select is((select count(*) from claimed), 1::bigint, 'and claims a stage task, which reads pgmq');
select isnt((select result from ticked), null, 'and runs the tick');

set local role mdame_engine;
insert into heartbeat select * from mdame.extend_stage_lease((select msg_id from claimed), (select lease_holder from claimed), 60);
reset role;
select is((select extended from heartbeat), true, 'and extends its claim (pgmq.set_vt inside the RPC)');

select * from finish();
rollback;
