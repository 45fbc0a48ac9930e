begin;
\ir ../_fixtures.psql
select plan(4);

delete from pgmq.q_stage_tasks;
create temp table on_time as select * from tests.unit_at_stage('script');
update mdame.work_units set stage_deadline = now() + interval '1 hour' where id = (select id from on_time);
create temp table finished as select * from tests.unit_at_stage('failed');
update mdame.work_units set stage_deadline = now() - interval '1 hour' where id = (select id from finished);

select is(mdame.recover_overdue_work(), '{"requeued": 0, "failed": 0}'::jsonb, 'nothing is recovered');
select is((select stage_attempts from mdame.work_units where id = (select id from on_time)), 0, 'a unit within its deadline keeps its attempts');
select is((select count(*) from pgmq.q_stage_tasks), 0::bigint, 'no task is enqueued');
select is((select (stage, stage_attempts) from mdame.work_units where id = (select id from finished)), ('failed'::text, 0),
          'a finished unit is never recovered, whatever its deadline');

select * from finish();
rollback;
