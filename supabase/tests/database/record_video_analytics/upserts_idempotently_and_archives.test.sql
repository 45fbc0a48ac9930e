begin;
\ir ../_fixtures.psql
\ir ../schedule_analytics_fetches/_published.psql
select plan(9);

create temp table pub as select * from tests.published_video(interval '4 days');
select mdame.schedule_analytics_fetches();
create temp table f as select * from mdame.analytics_fetches where publication_id = (select id from pub);

create temp table first as select * from mdame.record_video_analytics((select id from pub), 3, current_date - 4, current_date - 1,
  1200, 800, 17.5, 52.25, 40, '[{"ratio": 0.5, "watch_ratio": 0.7}, {"ratio": 1.0, "watch_ratio": 0.4}]', (select msg_id from f));
select is((select views from first), 1200::bigint, 'the figures are stored');
select is((select status from mdame.analytics_fetches where publication_id = (select id from pub) and window_days = 3), 'fetched',
  'the window''s fetch is marked fetched');
select ok(tests.archived('analytics_fetches', (select msg_id from f)), 'its queue message is archived with the row written');
select is(tests.event_count((select unit_id from pub), 'analytics_fetched', 'analytics'), 1::bigint, 'an event records the fetch');

select mdame.set_engine_clock(interval '1 hour');
create temp table again as select * from mdame.record_video_analytics((select id from pub), 3, current_date - 4, current_date - 1,
  1200, 800, 17.5, 52.25, 40, '[{"ratio": 0.5, "watch_ratio": 0.7}, {"ratio": 1.0, "watch_ratio": 0.4}]', (select msg_id from f));
select is((select count(*)::int from mdame.video_analytics where publication_id = (select id from pub)), 1, 'a repeat writes no second row');
select is((select id from again), (select id from first), 'a repeat keeps the row');
select ok((select fetched_at from again) > (select fetched_at from first), 'a repeat moves fetched_at (the engine clock)');

select lives_ok(format($$select mdame.record_video_analytics(%L, 3, current_date - 4, current_date, 1500, 900, 18, 50, 45, '[]', null)$$, (select id from pub)),
  'newer figures for the window are accepted');
select is((select views from mdame.video_analytics where publication_id = (select id from pub)), 1500::bigint, 'and replace the old ones');

select * from finish();
rollback;
