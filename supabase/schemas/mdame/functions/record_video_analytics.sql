-- Stores what YouTube Analytics reported for a published YouTube video at one window (3 or 7 days):
-- an upsert on (publication_id, window_days), so a repeated fetch replaces the figures and moves
-- fetched_at (the engine's clock, mdame.engine_now). Marks the window's fetch fetched and, when
-- p_msg_id is given, archives its queue message in the same transaction: the message leaves the
-- queue only once the row is written. Figures that cannot be YouTube's are refused (22023): a
-- window other than 3 or 7, a missing or negative figure, more engaged views than views,
-- a period that ends before it starts, a retention curve that is not up to 100 points
-- {ratio in (0,1], watch_ratio >= 0} in increasing ratio order. An unknown or non-YouTube
-- publication is MDN01.

create or replace function mdame.record_video_analytics(p_publication_id uuid, p_window_days integer, p_period_start date, p_period_end date,
  p_views bigint, p_engaged_views bigint, p_average_view_duration_s numeric, p_average_view_percentage numeric, p_likes bigint,
  p_retention jsonb, p_msg_id bigint default null::bigint)
returns mdame.video_analytics
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_publication mdame.publications;
  v_row mdame.video_analytics;
  v_now timestamptz := mdame.engine_now();
  v_bad text;
begin
  perform mdame.assert_analytics_window(p_window_days, p_period_start, p_period_end);
  if p_views is null or p_engaged_views is null or p_likes is null or p_average_view_duration_s is null or p_average_view_percentage is null
     or p_views < 0 or p_engaged_views < 0 or p_likes < 0 or p_average_view_duration_s < 0 or p_average_view_percentage < 0 then
    raise exception 'views, engaged views, likes and the averages must be given and not negative' using errcode = '22023';
  end if;
  if p_engaged_views > p_views then
    raise exception 'engaged views (%) cannot exceed views (%)', p_engaged_views, p_views using errcode = '22023';
  end if;
  if p_retention is null or jsonb_typeof(p_retention) <> 'array' or jsonb_array_length(p_retention) > 100 then
    raise exception 'the retention curve must be an array of at most 100 points' using errcode = '22023';
  end if;
  select format('point %s', e.i) into v_bad
    from jsonb_array_elements(p_retention) with ordinality as e(p, i)
   where jsonb_typeof(e.p) <> 'object'
      or (select count(*) from jsonb_object_keys(e.p)) <> 2
      or jsonb_typeof(e.p->'ratio') is distinct from 'number' or jsonb_typeof(e.p->'watch_ratio') is distinct from 'number'
      or (e.p->>'ratio')::numeric <= 0 or (e.p->>'ratio')::numeric > 1 or (e.p->>'watch_ratio')::numeric < 0
      or (e.i > 1 and (e.p->>'ratio')::numeric <= (p_retention->(e.i::integer - 2)->>'ratio')::numeric)
   order by e.i
   limit 1;
  if v_bad is not null then
    raise exception 'the retention curve''s % is not {ratio in (0,1], watch_ratio >= 0} after the point before it', v_bad using errcode = '22023';
  end if;

  select * into v_publication from mdame.publications where id = p_publication_id;
  if not found or v_publication.platform <> 'youtube' then
    raise exception 'no YouTube publication %', p_publication_id using errcode = 'MDN01';
  end if;

  insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                     average_view_duration_s, average_view_percentage, likes, retention)
  values (p_publication_id, p_window_days, v_now, p_period_start, p_period_end, p_views, p_engaged_views,
          p_average_view_duration_s, p_average_view_percentage, p_likes, p_retention)
  on conflict (publication_id, window_days) do update
    set fetched_at = excluded.fetched_at, period_start = excluded.period_start, period_end = excluded.period_end,
        views = excluded.views, engaged_views = excluded.engaged_views, average_view_duration_s = excluded.average_view_duration_s,
        average_view_percentage = excluded.average_view_percentage, likes = excluded.likes, retention = excluded.retention
  returning * into v_row;

  perform mdame.close_analytics_fetch(v_publication, p_window_days, p_msg_id, jsonb_build_object(
    'views', p_views, 'engaged_views', p_engaged_views, 'average_view_percentage', p_average_view_percentage));
  return v_row;
end;
$$;
