-- A dimension's publishing settings are valid when every field is there with its type and bounds,
-- as shared/contracts/publishing.ts checks them: the time zone must be one this server knows.

create or replace function mdame.publishing_is_valid(p_publishing jsonb)
returns boolean
language sql
immutable security definer
set search_path = ''
as $$
  select coalesce(
    jsonb_typeof(p_publishing) = 'object'
    and p_publishing ?& array['category_id', 'privacy_status', 'time_zone', 'publish_time', 'run_time', 'made_for_kids',
                              'contains_synthetic_media', 'default_audio_language']
    and (p_publishing - array['category_id', 'privacy_status', 'time_zone', 'publish_time', 'run_time', 'made_for_kids',
                              'contains_synthetic_media', 'default_audio_language']) = '{}'::jsonb
    and jsonb_typeof(p_publishing->'category_id') = 'string' and p_publishing->>'category_id' ~ '^[0-9]{1,4}$'
    and jsonb_typeof(p_publishing->'privacy_status') = 'string' and p_publishing->>'privacy_status' in ('public', 'unlisted', 'private')
    and jsonb_typeof(p_publishing->'time_zone') = 'string'
    and exists (select 1 from pg_catalog.pg_timezone_names z where z.name = p_publishing->>'time_zone')
    and (jsonb_typeof(p_publishing->'publish_time') = 'null' or (jsonb_typeof(p_publishing->'publish_time') = 'string'
         and p_publishing->>'publish_time' ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'))
    and (jsonb_typeof(p_publishing->'run_time') = 'null' or (jsonb_typeof(p_publishing->'run_time') = 'string'
         and p_publishing->>'run_time' ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'))
    and jsonb_typeof(p_publishing->'made_for_kids') = 'boolean'
    and jsonb_typeof(p_publishing->'contains_synthetic_media') = 'boolean'
    and (jsonb_typeof(p_publishing->'default_audio_language') = 'null' or (jsonb_typeof(p_publishing->'default_audio_language') = 'string'
         and p_publishing->>'default_audio_language' ~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*$')),
    false)
$$;
