begin;
\ir ../_fixtures.psql
\ir _published.psql
select plan(8);

create temp table day2 as select * from tests.published_video(interval '2 days');
create temp table day4 as select * from tests.published_video(interval '4 days');
create temp table day8 as select * from tests.published_video(interval '8 days');

select is(mdame.schedule_analytics_fetches(), 3, 'the day-3 window of the 4-day-old video and both windows of the 8-day-old one are due');
select is((select count(*)::int from mdame.analytics_fetches where publication_id = (select id from day2)), 0,
  'a video published 2 days ago is not fetched before its day-3 window');
select is((select array_agg(window_days order by window_days) from mdame.analytics_fetches where publication_id = (select id from day4)), array[3],
  'a 4-day-old video has only its day-3 window enqueued');
select is((select array_agg(window_days order by window_days) from mdame.analytics_fetches where publication_id = (select id from day8)), array[3, 7],
  'an 8-day-old video has both windows enqueued');
select is(tests.queued_count('analytics_fetches', jsonb_build_object('publication_id', (select id from day8))), 2::bigint,
  'each enqueued window is one message on the analytics_fetches queue');
select ok((select bool_and(tests.queue_has('analytics_fetches', msg_id)) from mdame.analytics_fetches), 'each row names its queued message');

select is(mdame.schedule_analytics_fetches(), 0, 'a second schedule enqueues nothing twice');

-- Three more days on the engine clock: the 4-day-old video reaches its day-7 window.
select mdame.set_engine_clock(interval '3 days');
select is(mdame.schedule_analytics_fetches(), 2, 'three days later the day-3 window of the first video and the day-7 window of the second come due');

select * from finish();
rollback;
