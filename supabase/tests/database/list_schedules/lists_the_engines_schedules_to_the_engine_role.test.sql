begin;
select plan(6);

-- Another job, a paused engine job, an engine job someone unscheduled and a look-alike, owned like
-- the others by the superuser.
select cron.schedule('not-the-engine', '*/5 * * * *', 'select 1');
select cron.schedule('mdame-intruder', '0 0 1 1 *', 'select 1');
update cron.job set active = false where jobname = 'mdame-scheduled-runs';
select cron.unschedule('mdame-alerts');

-- The engine role may create no temporary table: it fills one the test made for it.
create temp table seen as select * from mdame.list_schedules() with ordinality with no data;
grant insert on seen to mdame_engine;
set local role mdame_engine;
insert into seen select * from mdame.list_schedules() with ordinality;
reset role;

select is((select array_agg(jobname order by jobname) from seen), (select array_agg(name order by name) from mdame.engine_jobs),
          'the engine role sees every engine job, though the jobs belong to the migration owner');
select is((select schedule from seen where jobname = 'mdame-tick'), '* * * * *', 'each with its schedule in cron.job');
select is((select active from seen where jobname = 'mdame-scheduled-runs'), false, 'a paused schedule shows as inactive');
select ok((select schedule is null and active is null from seen where jobname = 'mdame-alerts'), 'an unscheduled engine job shows with no schedule nor state');
select is((select array_agg(jobname order by ordinality) filter (where active is not null) from seen),
          (select array_agg(jobname::text order by jobid) from cron.job where jobname in (select name from mdame.engine_jobs)),
          'scheduled jobs in the order they were created, the unscheduled last');
select is((select count(*) from seen where jobname in ('not-the-engine', 'mdame-intruder')), 0::bigint, 'jobs that are not the engine''s are left out');

select * from finish();
rollback;
