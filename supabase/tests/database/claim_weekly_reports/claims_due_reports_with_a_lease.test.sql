begin;
\ir ../_fixtures.psql
select plan(8);

select mdame.queue_weekly_reports('2026-11-22 21:00Z');
create temp table c1 as select * from mdame.claim_weekly_reports('builder-a', 1, 300);
select is((select count(*)::int from c1), 1, 'a claim takes at most its limit');
select is((select attempts from c1), 1, 'and counts an attempt');
select is((select lease_holder from c1), 'builder-a', 'held by the builder');
create temp table c2 as select * from mdame.claim_weekly_reports('builder-b', 5, 300);
select is((select count(*)::int from c2), 1, 'another builder takes only what is left');
select is((select count(*)::int from mdame.claim_weekly_reports('builder-c', 5, 300)), 0, 'nothing is claimed twice while leased');
-- The lease runs out (the builder died): the row is due again.
select mdame.set_engine_clock(interval '6 minutes');
select is((select lease_holder from mdame.claim_weekly_reports('builder-c', 5, 300) where id = (select id from c1)), 'builder-c',
  'an expired lease lets the next tick take it');
-- After five attempts without an outcome, the row is failed instead of claimed again.
update mdame.weekly_reports set attempts = 5, next_attempt_at = mdame.engine_now() - interval '1 second' where id = (select id from c2);
select is((select count(*)::int from mdame.claim_weekly_reports('builder-d', 5, 300) where id = (select id from c2)), 0, 'a row out of attempts is not claimed');
select is((select status from mdame.weekly_reports where id = (select id from c2)), 'failed', 'it is failed');

select * from finish();
rollback;
