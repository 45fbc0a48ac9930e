begin;
\ir ../_fixtures.psql
select plan(5);

select is((select count(*)::int from cron.job where jobname like 'mdame-%' and mdame.engine_job_function(jobname) is null), 0,
          'every engine schedule has its function in the run-now list');
select is((select count(*)::int from mdame.engine_jobs e where not exists
             (select 1 from cron.job j where j.jobname = e.name and j.schedule = e.schedule and j.command = e.command)), 0,
          'every engine job is scheduled with its schedule, calling its function');
select is(mdame.engine_job_function('mdame-intruder'), null, 'any other name maps to nothing');
select is((select count(*)::int from information_schema.role_routine_grants
            where routine_schema = 'mdame' and routine_name = 'engine_job_function' and grantee in ('service_role', 'mdame_engine')), 0,
          'the list is internal: no client role calls it');
select is((select code from tests.refusal($$insert into mdame.engine_jobs (name, schedule, call, returns_set) values ('mdame-x', '* * * * *', 'mdame.tick(); drop table mdame.dimensions; select mdame.tick()', false)$$)),
          '23514', 'a call that is more than one mdame function is refused by the table');

select * from finish();
rollback;
