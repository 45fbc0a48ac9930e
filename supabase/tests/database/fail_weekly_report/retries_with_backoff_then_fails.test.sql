begin;
\ir ../_fixtures.psql
select plan(7);

select mdame.queue_weekly_reports('2026-11-22 21:00Z');
create temp table c as select * from mdame.claim_weekly_reports('builder-a', 1, 300);
create temp table f as select * from mdame.fail_weekly_report((select id from c), 'builder-a', 'storage unavailable');
select is((select status from f), 'pending', 'a failed attempt is tried again');
select is((select last_error from f), 'storage unavailable', 'its error is kept');
select ok((select next_attempt_at from f) between mdame.engine_now() + interval '59 seconds' and mdame.engine_now() + interval '61 seconds',
  'after a minute');
select is((select status from mdame.fail_weekly_report((select id from c), 'builder-a', 'again')), 'pending',
  'a caller that no longer holds the row changes nothing');
-- The fifth attempt fails for good.
update mdame.weekly_reports set attempts = 5, lease_holder = 'builder-z' where id = (select id from c);
create temp table last as select * from mdame.fail_weekly_report((select id from c), 'builder-z', 'still broken');
select is((select status from last), 'failed', 'after five attempts the report is failed');
select is((select count(*)::int from mdame.claim_weekly_reports('builder-y', 5, 300) where id = (select id from c)), 0, 'and never claimed again');
select is((select count(*)::int from mdame.alerts where kind = 'weekly_report'), 0, 'no report alert for a failure');

select * from finish();
rollback;
