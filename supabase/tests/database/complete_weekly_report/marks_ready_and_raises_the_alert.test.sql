begin;
\ir ../_fixtures.psql
select plan(10);

select mdame.queue_weekly_reports('2026-11-22 21:00Z');
create temp table c as select * from mdame.claim_weekly_reports('builder-a', 1, 300);
create temp table done as
select * from mdame.complete_weekly_report((select id from c), 'builder-a', mdame.weekly_report((select dimension_id from c), (select week_start from c)),
                                           '# Weekly report', 'reports/weekly/x/2026-11-16-abc.png', '{"published": 0}');
select is((select status from done), 'ready', 'the report is ready');
select is((select chart_key from done), 'reports/weekly/x/2026-11-16-abc.png', 'with its chart');
select is((select markdown from done), '# Weekly report', 'and its Markdown');
select is((select kind || ' ' || dedupe_key from mdame.alerts where id = (select alert_id from done)),
  'weekly_report weekly_report:' || (select dimension_id from c) || ':2026-11-16', 'its alert is raised with the week''s dedupe key');
select is((select summary || ' ' || photo_key from mdame.alerts where id = (select alert_id from done)),
  '# Weekly report reports/weekly/x/2026-11-16-abc.png', 'the Markdown as its text and the chart as its photo');
select is((select details->>'week_start' from mdame.alerts where id = (select alert_id from done)), '2026-11-16', 'its details name the week');
-- A repeated completion changes nothing and raises nothing.
select is((select status from mdame.complete_weekly_report((select id from c), 'builder-a', '{}', 'again', 'k/x.png')), 'ready',
  'a repeated call returns the row');
select is((select count(*)::int from mdame.alerts), 1, 'and raises no second alert');
select is((select markdown from mdame.weekly_reports where id = (select id from c)), '# Weekly report', 'nor changes the report');
select throws_ok(format('select mdame.complete_weekly_report(%L, %L, %L, %L, %L)', gen_random_uuid(), 'x', '{}', 'm', 'k/x.png'), 'MDN01', null,
  'an unknown report is refused');

select * from finish();
rollback;
