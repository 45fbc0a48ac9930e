begin;
\ir ../_fixtures.psql
select plan(4);
\ir _published.psql

create temp table fetched as select * from tests.published_video(interval '4 days');
insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                   average_view_duration_s, average_view_percentage, likes, retention)
select id, 3, now(), current_date - 4, current_date - 1, 10, 5, 12, 40, 1, '[]' from fetched;
create temp table pending as select * from tests.fresh_publication();
update mdame.publications set published_at = now() - interval '4 days' where id = (select id from pending);

select is(mdame.schedule_analytics_fetches(), 0, 'a window already fetched and a publication not published are not enqueued');

create temp table paused as select * from tests.published_video(interval '4 days');
update mdame.dimension_accounts set active = false where id = (select account_id from paused);
select is(mdame.schedule_analytics_fetches(), 0, 'a paused account''s videos wait');
update mdame.dimension_accounts set active = true, health_state = 'needs_reconnect' where id = (select account_id from paused);
select is(mdame.schedule_analytics_fetches(), 0, 'an account that needs reconnecting waits');
update mdame.dimension_accounts set health_state = 'ok' where id = (select account_id from paused);
select is(mdame.schedule_analytics_fetches(), 1, 'once the account is healthy its due window is enqueued');

select * from finish();
rollback;
