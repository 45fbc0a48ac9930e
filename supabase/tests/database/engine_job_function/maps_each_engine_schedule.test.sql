begin;
select plan(4);

select is((select count(*)::int from cron.job where jobname like 'mdame-%' and mdame.engine_job_function(jobname) is null), 0,
          'every engine schedule has its function in the run-now list');
select ok((select bool_and(j.command = 'select ' || mdame.engine_job_function(j.jobname)
                           or j.command like 'select % from ' || mdame.engine_job_function(j.jobname))
             from cron.job j where j.jobname like 'mdame-%'),
          'each listed function is the one its schedule calls');
select is(mdame.engine_job_function('mdame-intruder'), null, 'any other name maps to nothing');
select is((select count(*)::int from information_schema.role_routine_grants
            where routine_schema = 'mdame' and routine_name = 'engine_job_function' and grantee in ('service_role', 'mdame_engine')), 0,
          'the list is internal: no client role calls it');

select * from finish();
rollback;
