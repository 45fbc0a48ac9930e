begin;
\ir ../_fixtures.psql
select plan(4);

-- An earlier run still holds the lock; its only unit is overdue with no attempts left.
create temp table u as select * from tests.unit_at_stage('script');
update mdame.work_units set stage_deadline = now() - interval '1 second', stage_attempts = 3 where id = (select id from u);
insert into mdame.system_locks (name, holder, lease_expires_at) values ('pipeline:dev', (select run_id::text from u), now() + interval '1 hour');

create temp table r as select * from mdame.start_run('k-after-recovery', 'dev', 'manual', current_date, null);

select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'the earlier run''s overdue unit is failed first');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'failed', 'which closes the earlier run');
select is((select created from r), true, 'the new run starts');
select is((select holder from mdame.system_locks where name = 'pipeline:dev'), (select run_id::text from r), 'holding the lock the earlier run released');

select * from finish();
rollback;
