-- Stores what TikTok's video/query reported for a published TikTok post at one window (3 or 7
-- days): views, likes, comments and shares (TikTok reports no watch time nor retention), an upsert
-- on (publication_id, window_days) as record_video_analytics is, the fetch marked fetched and its
-- message archived in the same transaction. Counts that cannot be TikTok's are refused (22023): a
-- window other than 3 or 7, a period that ends before it starts, a missing or negative count. An
-- unknown or non-TikTok publication is MDN01.

create or replace function mdame.record_tiktok_video_analytics(p_publication_id uuid, p_window_days integer, p_period_start date,
  p_period_end date, p_views bigint, p_likes bigint, p_comments bigint, p_shares bigint, p_msg_id bigint default null::bigint)
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
  if p_views is null or p_likes is null or p_comments is null or p_shares is null
     or least(p_views, p_likes, p_comments, p_shares) < 0 then
    raise exception 'views, likes, comments and shares must be given and not negative' using errcode = '22023';
  end if;
  select * into v_publication from mdame.publications where id = p_publication_id;
  if not found or v_publication.platform <> 'tiktok' then
    raise exception 'no TikTok publication %', p_publication_id using errcode = 'MDN01';
  end if;

  insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, likes, comments, shares)
  values (p_publication_id, p_window_days, mdame.engine_now(), p_period_start, p_period_end, p_views, p_likes, p_comments, p_shares)
  on conflict (publication_id, window_days) do update
    set fetched_at = excluded.fetched_at, period_start = excluded.period_start, period_end = excluded.period_end,
        views = excluded.views, likes = excluded.likes, comments = excluded.comments, shares = excluded.shares
  returning * into v_row;
  perform mdame.close_analytics_fetch(v_publication, p_window_days, p_msg_id, jsonb_build_object(
    'views', p_views, 'likes', p_likes, 'comments', p_comments, 'shares', p_shares));
  return v_row;
end;
$$;
