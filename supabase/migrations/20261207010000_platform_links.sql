-- platform links: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.external_url(p_platform text, p_external_id text, p_channel_handle text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case when p_external_id is null then null
              when p_platform = 'youtube' then 'https://www.youtube.com/shorts/' || p_external_id
              when p_platform = 'tiktok' then 'https://www.tiktok.com/@' || ltrim(p_channel_handle, '@') || '/video/' || p_external_id
              when p_platform = 'facebook' then 'https://www.facebook.com/reel/' || p_external_id
         end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.ops_video(p_publication_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
           'video', jsonb_build_object(
             'id', p.id, 'unit_id', p.unit_id, 'run_id', u.run_id, 'dimension_id', u.dimension_id,
             'platform', p.platform, 'channel_handle', a.channel_handle, 'external_id', p.external_id,
             'url', mdame.external_url(p.platform, p.external_id, a.channel_handle),
             'title', coalesce(u.script->>'title', u.topic->>'title'),
             'status', p.status, 'privacy_status', p.privacy_status, 'deferred_reason', p.deferred_reason,
             'created_at', p.created_at, 'published_at', p.published_at),
           'quality', u.quality,
           'render', jsonb_build_object(
             'key', coalesce(p.video_key, u.video->>'video_key'),
             'duration_s', (u.video->>'duration_s')::numeric,
             'width', (u.video->>'width')::integer,
             'height', (u.video->>'height')::integer,
             'size_bytes', (u.video->>'size_bytes')::bigint),
           'scenes', (select coalesce(jsonb_agg(jsonb_build_object(
                        'scene_index', s.scene_index, 'status', s.status, 'duration_s', s.duration_s, 'narration', s.narration,
                        'backend', s.backend, 'backend_name', c.backend_name, 'asset_key', s.asset_key, 'cache_hit', s.cache_hit,
                        'credit', c.credit) order by s.scene_index), '[]'::jsonb)
                        from mdame.scenes s
                        left join lateral (
                          select sc.backend_name, sc.credit from mdame.scene_cache sc
                           where sc.scene_hash = s.scene_hash and (sc.backend = s.backend or sc.asset_key = s.asset_key)
                           order by sc.backend = s.backend desc limit 1
                        ) c on true
                       where s.unit_id = u.id),
           'analytics', (select coalesce(jsonb_agg(jsonb_build_object(
                           'window_days', va.window_days, 'fetched_at', va.fetched_at, 'period_start', va.period_start,
                           'period_end', va.period_end, 'views', va.views, 'engaged_views', va.engaged_views,
                           'average_view_duration_s', va.average_view_duration_s, 'average_view_percentage', va.average_view_percentage,
                           'likes', va.likes, 'comments', va.comments, 'shares', va.shares,
                           'retention', coalesce(va.retention, '[]'::jsonb)) order by va.window_days), '[]'::jsonb)
                           from mdame.video_analytics va where va.publication_id = p.id))
    from mdame.publications p
    join mdame.work_units u on u.id = p.unit_id
    join mdame.dimension_accounts a on a.id = p.account_id
   where p.id = p_publication_id;
$function$
;

CREATE OR REPLACE FUNCTION mdame.ops_videos(p_limit integer)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select coalesce(jsonb_agg(v.video order by v.at desc, v.id), '[]'::jsonb)
    from (
      select p.id, coalesce(p.published_at, p.created_at) as at,
             jsonb_build_object(
               'id', p.id, 'unit_id', p.unit_id, 'run_id', u.run_id, 'dimension_id', u.dimension_id,
               'platform', p.platform, 'channel_handle', a.channel_handle, 'external_id', p.external_id,
               'url', mdame.external_url(p.platform, p.external_id, a.channel_handle),
               'title', coalesce(u.script->>'title', u.topic->>'title'),
               'status', p.status, 'privacy_status', p.privacy_status, 'deferred_reason', p.deferred_reason,
               'created_at', p.created_at, 'published_at', p.published_at) as video
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       order by coalesce(p.published_at, p.created_at) desc, p.id
       limit least(greatest(coalesce(p_limit, 0), 0), 500)
    ) v;
$function$
;

comment on function mdame.external_url(text,text,text) is 'internal: the public link of an uploaded video, for the ops views (ops_video, ops_videos)';

select mdame.restrict_function_privileges();
