-- The public link of an uploaded video on its platform, or null when there is none to build: a
-- YouTube Short by its video id, a TikTok post by the account's handle and the post id, a Facebook
-- Reel by its video id. An Instagram Reel's link names its shortcode, which the Graph API gives only
-- when asked for the media's permalink; the media id alone makes no link, so there is none.

create or replace function mdame.external_url(p_platform text, p_external_id text, p_channel_handle text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case when p_external_id is null then null
              when p_platform = 'youtube' then 'https://www.youtube.com/shorts/' || p_external_id
              when p_platform = 'tiktok' then 'https://www.tiktok.com/@' || ltrim(p_channel_handle, '@') || '/video/' || p_external_id
              when p_platform = 'facebook' then 'https://www.facebook.com/reel/' || p_external_id
         end;
$$;

comment on function mdame.external_url(text, text, text) is 'internal: the public link of an uploaded video, for the ops views and the weekly report (ops_video, ops_videos, weekly_report)';
