-- Meta refused a publication's post for its publishing limit (Instagram's code 9, subcode 2207042 at
-- media_publish; Facebook's refusal of a Reel's finish), which it counts from every app while the
-- engine counts its own posts only. The account is held full (meta_publishing_limits.full_until)
-- until one of the engine's posts of the last 24 hours ages out, or for an hour when it made none,
-- and that instant is returned. The publication keeps its place: its container or Reel waits for it.

create or replace function mdame.record_meta_refusal(p_publication_id uuid)
returns timestamp with time zone
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_post mdame.meta_posts;
  v_account mdame.dimension_accounts;
  v_now timestamptz := mdame.engine_now();
  v_not_before timestamptz;
begin
  select * into v_post from mdame.meta_posts where publication_id = p_publication_id;
  if not found then
    raise exception 'no Meta post reserved for publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_account from mdame.dimension_accounts where id = v_post.account_id for update;
  v_not_before := mdame.meta_window_room_at(v_account.id, p_publication_id, 1, v_now);
  update mdame.meta_publishing_limits
     set full_until = greatest(full_until, v_not_before), quota_usage = greatest(quota_usage, quota_total)
   where account_id = v_account.id;
  perform mdame.log_event(null, null, 'publish', 'meta_limit_refusal', jsonb_build_object(
    'account_id', v_account.id, 'platform', v_account.platform, 'channel_handle', v_account.channel_handle,
    'publication_id', p_publication_id, 'not_before', v_not_before));
  return v_not_before;
end;
$$;
