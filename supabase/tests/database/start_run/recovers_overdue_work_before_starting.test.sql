begin;
\ir ../_fixtures.psql
select plan(4);

-- An earlier run's only unit is overdue with no attempts left, its lost task gone from the queue.
create temp table u as select * from tests.unit_at_stage('script');
update mdame.work_units set stage_deadline = now() - interval '1 second', stage_attempts = 3 where id = (select id from u);

create temp table r as select * from mdame.start_run('k-after-recovery', 'dev', 'manual', current_date, null);

select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'the earlier run''s overdue unit is failed first');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'failed', 'which closes the earlier run');
select is((select created from r), true, 'the new run starts');
select is((select count(*) from mdame.system_locks where name = 'pipeline:dev'), 0::bigint, 'and the environment''s lock is free after the pass');

select * from finish();
rollback;
