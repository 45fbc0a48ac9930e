begin;
select plan(4);

-- Another job and a paused engine job, owned like the others by the superuser.
select cron.schedule('not-the-engine', '*/5 * * * *', 'select 1');
update cron.job set active = false where jobname = 'mdame-scheduled-runs';

-- The engine role may create no temporary table: it fills one the test made for it.
create temp table seen as select * from mdame.list_schedules() with ordinality with no data;
grant insert on seen to mdame_engine;
set local role mdame_engine;
insert into seen select * from mdame.list_schedules() with ordinality;
reset role;

select ok((select array['mdame-tick', 'mdame-scheduled-runs'] <@ array_agg(jobname) from seen),
          'the engine role sees the engine''s schedules, which belong to the migration owner');
select is((select array_agg(row(jobname, schedule, active)::text order by ordinality) from seen),
          (select array_agg(row(jobname::text, schedule::text, active)::text order by jobid) from cron.job where jobname like 'mdame-%'),
          'each with its schedule and whether it is active, in the order they were scheduled');
select is((select active from seen where jobname = 'mdame-scheduled-runs'), false, 'a paused schedule shows as inactive');
select is((select count(*) from seen where jobname = 'not-the-engine'), 0::bigint, 'jobs that are not the engine''s are left out');

select * from finish();
rollback;
