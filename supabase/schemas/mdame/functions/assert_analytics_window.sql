-- The window and period every recorded set of figures must have (record_video_analytics,
-- record_counted_video_analytics): 3 or 7 days, a period with a start and an end not before it;
-- 22023 otherwise.

create or replace function mdame.assert_analytics_window(p_window_days integer, p_period_start date, p_period_end date)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_window_days is null or p_window_days not in (3, 7) then
    raise exception 'the window is 3 or 7 days, not %', coalesce(p_window_days::text, '(none)') using errcode = '22023';
  end if;
  if p_period_start is null or p_period_end is null or p_period_end < p_period_start then
    raise exception 'the period must have a start and an end not before it' using errcode = '22023';
  end if;
end;
$$;

comment on function mdame.assert_analytics_window(integer, date, date) is 'internal: the window and period check of the two recording RPCs';
