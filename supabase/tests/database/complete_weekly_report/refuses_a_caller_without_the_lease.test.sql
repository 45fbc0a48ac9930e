begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.queue_weekly_reports('2026-11-22 21:00Z');
create temp table c as select * from mdame.claim_weekly_reports('builder-a', 1, 300);
create temp table late as select * from mdame.complete_weekly_report((select id from c), 'builder-b', '{}', '# report', 'k/x.png');
select is((select status from late), 'pending', 'a builder that does not hold the lease changes nothing');
select is((select count(*)::int from mdame.alerts), 0, 'and raises no alert');
select throws_ok(format('select mdame.complete_weekly_report(%L, %L, %L, %L, %L)', (select id from c), 'builder-a', '{}', ' ', 'k/x.png'), '22023', null,
  'a ready report needs its Markdown');
select is((select status from mdame.weekly_reports where id = (select id from c)), 'pending', 'the report still waits');

select * from finish();
rollback;
