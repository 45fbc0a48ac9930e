-- When an Instagram or Facebook account's moving 24-hour publishing window has room for one more
-- post, on the engine's clock: p_over posts must age out first (the window holds p_over - 1 more
-- posts than the limit allows). Only the engine's own posts can be dated (mdame.meta_posts, the
-- publication p_publication_id aside): the p_over-th oldest of them ages out 24 hours after it was
-- reserved. When the engine made fewer, the posts Meta counts come from elsewhere (another app,
-- another tool) and cannot be dated: the limit is read again an hour later.

create or replace function mdame.meta_window_room_at(p_account_id uuid, p_publication_id uuid, p_over integer, p_now timestamp with time zone)
returns timestamp with time zone
language sql
stable
set search_path = ''
as $$
  select coalesce(
    (select reserved_at + interval '24 hours' from mdame.meta_posts
      where account_id = p_account_id and publication_id <> p_publication_id and reserved_at > p_now - interval '24 hours'
      order by reserved_at offset greatest(p_over, 1) - 1 limit 1),
    p_now + interval '1 hour');
$$;

comment on function mdame.meta_window_room_at(uuid,uuid,integer,timestamp with time zone) is 'internal: when a Meta account''s publishing window has room, for reserve_meta_post and record_meta_refusal';
