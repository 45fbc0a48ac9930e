begin;
\ir ../_fixtures.psql
\ir ../schedule_analytics_fetches/_published.psql
select plan(8);

create temp table pub as select * from tests.published_video(interval '4 days');
create or replace function tests.record(p_window integer, p_views bigint, p_engaged bigint, p_likes bigint, p_pct numeric, p_retention jsonb,
  p_publication uuid default null) returns text
language sql as $$
  select code from tests.refusal(format('select mdame.record_video_analytics(%L, %s, current_date - 4, current_date - 1, %s, %s, 12, %s, %s, %L)',
    coalesce(p_publication, (select id from pub)), p_window, p_views, p_engaged, p_pct, p_likes, p_retention));
$$;

select is(tests.record(5, 100, 50, 1, 40, '[]'), '22023', 'a window other than 3 or 7 days is refused');
select is(tests.record(3, -1, 0, 0, 40, '[]'), '22023', 'negative views are refused');
select is(tests.record(3, 100, 150, 1, 40, '[]'), '22023', 'more engaged views than views are refused');
select is(tests.record(3, 100, 50, 1, -2, '[]'), '22023', 'a negative average percentage is refused');
select is(tests.record(3, 100, 50, 1, 40, '{"ratio": 1}'), '22023', 'a retention curve that is not an array is refused');
select is(tests.record(3, 100, 50, 1, 40, '[{"ratio": 0.6, "watch_ratio": 0.5}, {"ratio": 0.3, "watch_ratio": 0.6}]'), '22023',
  'a retention curve out of ratio order is refused');
select is(tests.record(3, 100, 50, 1, 40, '[]', gen_random_uuid()), 'MDN01', 'an unknown publication is refused');
select is((select count(*)::int from mdame.video_analytics), 0, 'nothing was written');

select * from finish();
rollback;
