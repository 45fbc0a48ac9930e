-- Stores what a platform other than YouTube reported for a published post at one window (3 or 7
-- days), as counts: TikTok's video/query (views, likes, comments, shares), Instagram's media
-- insights (views, likes, comments, shares, reach, saved, the average watch time) and a Facebook
-- Reel's video insights (plays, reactions, comments, shares, reach, the average time watched).
-- A count the platform does not report is null (TikTok reports no reach nor watch time); views and
-- likes are every platform's. An upsert on (publication_id, window_days) as record_video_analytics
-- is, the fetch marked fetched and its message archived in the same transaction. Figures that
-- cannot be a platform's are refused (22023): a window other than 3 or 7, a period that ends before
-- it starts, a missing view or like count, a negative figure. An unknown or YouTube publication is
-- MDN01 (YouTube's figures go through record_video_analytics).

create or replace function mdame.record_counted_video_analytics(p_publication_id uuid, p_window_days integer, p_period_start date,
  p_period_end date, p_views bigint, p_likes bigint, p_comments bigint, p_shares bigint, p_reach bigint default null::bigint,
  p_saved bigint default null::bigint, p_average_view_duration_s numeric default null::numeric, p_msg_id bigint default null::bigint)
returns mdame.video_analytics
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_publication mdame.publications;
  v_row mdame.video_analytics;
begin
  perform mdame.assert_analytics_window(p_window_days, p_period_start, p_period_end);
  if p_views is null or p_likes is null
     or least(p_views, p_likes, coalesce(p_comments, 0), coalesce(p_shares, 0), coalesce(p_reach, 0), coalesce(p_saved, 0)) < 0
     or coalesce(p_average_view_duration_s, 0) < 0 then
    raise exception 'views and likes must be given, and no figure may be negative' using errcode = '22023';
  end if;
  select * into v_publication from mdame.publications where id = p_publication_id;
  if not found or v_publication.platform = 'youtube' then
    raise exception 'no publication % of a platform whose figures are counts', p_publication_id using errcode = 'MDN01';
  end if;

  insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, likes, comments, shares,
                                     reach, saved, average_view_duration_s)
  values (p_publication_id, p_window_days, mdame.engine_now(), p_period_start, p_period_end, p_views, p_likes, p_comments, p_shares,
          p_reach, p_saved, p_average_view_duration_s)
  on conflict (publication_id, window_days) do update
    set fetched_at = excluded.fetched_at, period_start = excluded.period_start, period_end = excluded.period_end,
        views = excluded.views, likes = excluded.likes, comments = excluded.comments, shares = excluded.shares,
        reach = excluded.reach, saved = excluded.saved, average_view_duration_s = excluded.average_view_duration_s
  returning * into v_row;
  perform mdame.close_analytics_fetch(v_publication, p_window_days, p_msg_id, jsonb_strip_nulls(jsonb_build_object(
    'views', p_views, 'likes', p_likes, 'comments', p_comments, 'shares', p_shares, 'reach', p_reach, 'saved', p_saved)));
  return v_row;
end;
$$;
