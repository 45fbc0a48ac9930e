-- Takes a post's place in an Instagram or Facebook account's moving 24-hour publishing window
-- (mdame.meta_posts) before its first call, on the engine's clock. p_quota_total is the account's
-- limit (Instagram: content_publishing_limit's config.quota_total, read before each post; Facebook:
-- the documented 30 Reels a Page may publish by API in 24 hours) and p_quota_usage the posts Meta
-- counts now (Instagram's quota_usage; null for Facebook, which offers no such read): both are
-- recorded in mdame.meta_publishing_limits. The window is full when Meta's count or the engine's own
-- (other publications' posts of the last 24 hours) reaches the limit, or while a refusal of Meta's
-- holds the account (full_until): refused with MDQ03, its DETAIL a JSON object with not_before (when
-- enough posts age out, mdame.meta_window_room_at). A publication is counted once: a repeat (a
-- resumed upload) keeps its first place. The account row is locked first, so two publishers of one
-- account are served one after the other.

create or replace function mdame.reserve_meta_post(p_account_id uuid, p_publication_id uuid, p_quota_total integer, p_quota_usage integer default null::integer)
returns mdame.meta_posts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_account mdame.dimension_accounts;
  v_limit mdame.meta_publishing_limits;
  v_now timestamptz := mdame.engine_now();
  v_ours integer;
  v_used integer;
  v_not_before timestamptz;
  v_post mdame.meta_posts;
begin
  select * into v_account from mdame.dimension_accounts where id = p_account_id for update;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_account.platform not in ('instagram', 'facebook') then
    raise exception 'account % is on %, not on Instagram or Facebook', p_account_id, v_account.platform using errcode = '22023';
  end if;
  if p_quota_total is null or p_quota_total < 0 or p_quota_usage < 0 then
    raise exception 'a publishing limit is a quota_total and a quota_usage of at least 0 (got % and %)', p_quota_total, p_quota_usage
      using errcode = '22023';
  end if;
  perform 1 from mdame.publications where id = p_publication_id and account_id = p_account_id;
  if not found then
    raise exception 'no publication % of account %', p_publication_id, p_account_id using errcode = 'MDN01';
  end if;
  insert into mdame.meta_publishing_limits (account_id, quota_total, quota_usage, read_at)
  values (p_account_id, p_quota_total, p_quota_usage, v_now)
  on conflict (account_id) do update
    set quota_total = excluded.quota_total, quota_usage = excluded.quota_usage, read_at = excluded.read_at
  returning * into v_limit;
  select count(*)::integer into v_ours from mdame.meta_posts
   where account_id = p_account_id and publication_id <> p_publication_id and reserved_at > v_now - interval '24 hours';
  v_used := greatest(coalesce(p_quota_usage, 0), v_ours);
  if v_used >= p_quota_total or v_limit.full_until > v_now then
    v_not_before := greatest(v_limit.full_until, mdame.meta_window_room_at(p_account_id, p_publication_id, v_used - p_quota_total + 1, v_now));
    raise exception '% account % has made % of its % posts in the last 24 hours', v_account.platform, v_account.channel_handle, v_used, p_quota_total
      using errcode = 'MDQ03',
            detail = jsonb_build_object('not_before', v_not_before, 'posts', v_used, 'limit', p_quota_total)::text;
  end if;
  insert into mdame.meta_posts (publication_id, account_id, reserved_at) values (p_publication_id, p_account_id, v_now)
  on conflict (publication_id) do nothing;
  select * into v_post from mdame.meta_posts where publication_id = p_publication_id;
  return v_post;
end;
$$;
