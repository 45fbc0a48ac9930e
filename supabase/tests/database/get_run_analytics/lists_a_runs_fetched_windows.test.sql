begin;
\ir ../_fixtures.psql
\ir ../schedule_analytics_fetches/_published.psql
select plan(3);

create temp table pub as select * from tests.published_video(interval '8 days');
create temp table run as select run_id from mdame.work_units where id = (select unit_id from pub);
select is((select count(*)::int from mdame.get_run_analytics((select run_id from run))), 0, 'nothing before a fetch');
select mdame.record_video_analytics((select id from pub), 3, current_date - 8, current_date - 5, 900, 600, 15, 48, 20, '[]');
select mdame.record_video_analytics((select id from pub), 7, current_date - 8, current_date - 1, 1500, 1000, 15, 47, 31, '[]');
select is((select array_agg(window_days order by window_days) from mdame.get_run_analytics((select run_id from run))), array[3, 7],
  'each fetched window of the run''s video');
select is((select views from mdame.get_run_analytics((select run_id from run)) where window_days = 7), 1500::bigint, 'with its figures');

select * from finish();
rollback;
