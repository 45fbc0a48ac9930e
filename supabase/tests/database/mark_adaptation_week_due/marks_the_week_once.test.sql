begin;
\ir ../_fixtures.psql
select plan(3);

select is(mdame.mark_adaptation_week_due(), date_trunc('week', mdame.engine_now() at time zone 'UTC')::date, 'the Monday of this week');
select mdame.mark_adaptation_week_due();
select is((select count(*)::int from mdame.adaptation_weeks), 1, 'marking again changes nothing');
select ok(exists (select 1 from cron.job where jobname = 'mdame-adapt-weekly' and schedule = '30 22 * * 0'), 'the Sunday job is scheduled');

select * from finish();
rollback;
