-- Uploads a platform gave another privacy than the engine asked for (YouTube making a video private
-- by the channel's settings or its own decision, TikTok posting an unaudited app's video SELF_ONLY),
-- newest first, with their platform and channel: what `mdame doctor` reports. Rows
-- recorded before the request was kept count as asked public.

create or replace function mdame.list_locked_publications(p_limit integer default 20)
returns table(publication_id uuid, account_id uuid, dimension_id text, channel_handle text, platform text, external_id text, privacy_status text, published_at timestamp with time zone)
language sql
stable security definer
set search_path = ''
as $$
  select p.id, a.id, a.dimension_id, a.channel_handle, p.platform, p.external_id, p.privacy_status, p.published_at
    from mdame.publications p
    join mdame.dimension_accounts a on a.id = p.account_id
   where p.privacy_status is not null and p.privacy_status is distinct from coalesce(p.privacy_requested, 'public')
   order by p.published_at desc nulls last, p.id
   limit greatest(coalesce(p_limit, 20), 0);
$$;
