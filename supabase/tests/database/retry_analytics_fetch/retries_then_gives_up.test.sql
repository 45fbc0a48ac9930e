begin;
\ir ../_fixtures.psql
\ir ../schedule_analytics_fetches/_published.psql
select plan(8);

create temp table pub as select * from tests.published_video(interval '4 days');
select mdame.schedule_analytics_fetches();
create temp table c as select * from mdame.claim_analytics_fetches(10, 60);

create temp table r as select * from mdame.retry_analytics_fetch((select id from pub), 3, (select msg_id from c), 7200, 'no data yet');
select is((select status from r), 'queued', 'a retried fetch stays queued');
select is((select last_error from r), 'no data yet', 'with its reason');
select ok((select vt from pgmq.q_analytics_fetches where msg_id = (select msg_id from c)) > now() + interval '119 minutes',
  'its message comes back after the delay');

create temp table g as select * from mdame.retry_analytics_fetch((select id from pub), 3, (select msg_id from c), 60, 'outage', true);
select is((select status from g), 'given_up', 'a fetch is given up when asked');
select ok(tests.archived('analytics_fetches', (select msg_id from c)), 'its message is archived');
select is(tests.event_count((select unit_id from pub), 'analytics_fetch_given_up', 'analytics'), 1::bigint, 'an event records it');
select is((select status from mdame.retry_analytics_fetch((select id from pub), 3, (select msg_id from c), 60, 'late')), 'given_up',
  'a late call returns the fetch unchanged');
select is((select code from tests.refusal(format('select mdame.retry_analytics_fetch(%L, 3, 1, 0, %L)', (select id from pub), 'x'))), '22023',
  'a delay below one second is refused');

select * from finish();
rollback;
