-- The account of a channel on a dimension, created on first connect; unique per dimension,
-- platform and channel handle. A reconnect updates the channel id and keeps the account's id
-- (its publications stay its own) and whether it is paused. The caller seals the credentials for
-- the returned id and stores them with store_account_credentials in the same transaction.
-- p_oauth_client_id is the OAuth client the grant was made through: for YouTube the Google project
-- whose quota the account spends (recorded in mdame.youtube_projects on first sight; a reconnect
-- through another client moves the account to that project), for TikTok the client key, for
-- Instagram and Facebook the Meta app id. Accounts are on youtube, tiktok, instagram or facebook
-- (22023 otherwise).

create or replace function mdame.connect_account(p_dimension_id text, p_platform text, p_channel_handle text, p_channel_id text default null::text, p_oauth_client_id text default 'default'::text)
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  -- The dimension first (every account RPC locks in this order), so it cannot vanish meanwhile.
  perform 1 from mdame.dimensions where id = p_dimension_id for update;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  if coalesce(trim(p_channel_handle), '') = '' then
    raise exception 'a channel handle is needed' using errcode = '22023';
  end if;
  if coalesce(trim(p_oauth_client_id), '') = '' then
    raise exception 'an OAuth client id is needed' using errcode = '22023';
  end if;
  if p_platform is null or p_platform not in ('youtube', 'tiktok', 'instagram', 'facebook') then
    raise exception 'no platform %: accounts are on youtube, tiktok, instagram or facebook', coalesce(p_platform, '(none)') using errcode = '22023';
  end if;
  if p_platform = 'youtube' then
    insert into mdame.youtube_projects (oauth_client_id) values (p_oauth_client_id) on conflict do nothing;
  end if;
  insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, channel_id, oauth_client_id)
  values (p_dimension_id, p_platform, p_channel_handle, p_channel_id, p_oauth_client_id)
  on conflict (dimension_id, platform, channel_handle) do update
    set channel_id = coalesce(excluded.channel_id, mdame.dimension_accounts.channel_id),
        oauth_client_id = excluded.oauth_client_id,
        updated_at = now()
  returning * into v_row;
  return v_row;
end;
$$;
