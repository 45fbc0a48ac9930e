-- TikTok as a second platform: accounts and publications may be on tiktok; a publication may wait
-- for a rate window (deferred_reason rate_limited); an account's OAuth client is a Google project
-- only on YouTube, so the foreign key to youtube_projects goes (connect_account still records a
-- YouTube account's project); TikTok's per-token rate limits and the calls they count.

alter table mdame.dimension_accounts drop constraint dimension_accounts_platform_check;
alter table mdame.dimension_accounts add constraint dimension_accounts_platform_check check ((platform = any (array['youtube'::text, 'tiktok'::text])));
alter table mdame.dimension_accounts drop constraint dimension_accounts_oauth_client_id_fkey;
comment on column mdame.dimension_accounts.oauth_client_id is 'The OAuth client the account was connected through (a Google project for YouTube, whose quota its calls spend, recorded in youtube_projects; a client key for TikTok).';

alter table mdame.publications drop constraint publications_platform_check;
alter table mdame.publications add constraint publications_platform_check check ((platform = any (array['youtube'::text, 'tiktok'::text])));
alter table mdame.publications drop constraint publications_deferred_reason_check;
alter table mdame.publications add constraint publications_deferred_reason_check check ((deferred_reason = any (array['quota_spent'::text, 'channel_cap'::text, 'rate_limited'::text, 'needs_reconnect'::text])));
comment on column mdame.publications.privacy_status is 'The privacy the platform gave the finished upload (YouTube status.privacyStatus, TikTok privacy_level); private when public was asked means the platform locked it.';

-- TikTok's per-token rate limits of the Content Posting API, as documented: 6 video.init requests a
-- minute, 20 creator_info/query and 30 status/fetch requests a minute. Each account has its own
-- token, so the limits are per account. A raised limit is changed here.
create table mdame.tiktok_rate_limits (
  call_kind text not null,
  calls integer not null,
  per_seconds integer not null,
  constraint tiktok_rate_limits_pkey primary key (call_kind),
  constraint tiktok_rate_limits_calls_check check ((calls > 0)),
  constraint tiktok_rate_limits_per_seconds_check check ((per_seconds > 0))
);

insert into mdame.tiktok_rate_limits (call_kind, calls, per_seconds) values
  ('video.init', 6, 60),
  ('creator_info.query', 20, 60),
  ('status.fetch', 30, 60)
on conflict do nothing;

alter table mdame.tiktok_rate_limits enable row level security;

-- One row per TikTok API call an account made, on the engine's clock: what its rate windows count.
create table mdame.tiktok_calls (
  id bigint generated always as identity,
  account_id uuid not null,
  call_kind text not null,
  created_at timestamp with time zone not null,
  constraint tiktok_calls_pkey primary key (id),
  constraint tiktok_calls_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id) on delete cascade,
  constraint tiktok_calls_call_kind_fkey foreign key (call_kind) references mdame.tiktok_rate_limits(call_kind)
);

create index tiktok_calls_window_idx on mdame.tiktok_calls (account_id, call_kind, created_at);

alter table mdame.tiktok_calls enable row level security;

-- Takes a TikTok API call's place in the account's rate window (mdame.tiktok_rate_limits) before it
-- is made, on the engine's clock. The account row is locked first, so two publishers of one
-- account are served one after the other. A full window is refused with MDQ04, its DETAIL a JSON
-- object with not_before: when the oldest call of the window ages out. Calls older than a day are
-- pruned as the account makes new ones.

create or replace function mdame.reserve_tiktok_call(p_account_id uuid, p_call_kind text)
returns mdame.tiktok_calls
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_limit mdame.tiktok_rate_limits;
  v_account mdame.dimension_accounts;
  v_now timestamptz := mdame.engine_now();
  v_count integer;
  v_oldest timestamptz;
  v_call mdame.tiktok_calls;
begin
  select * into v_limit from mdame.tiktok_rate_limits where call_kind = p_call_kind;
  if not found then
    raise exception 'no TikTok call kind %', p_call_kind using errcode = 'MDN01';
  end if;
  select * into v_account from mdame.dimension_accounts where id = p_account_id for update;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_account.platform <> 'tiktok' then
    raise exception 'account % is on %, not on TikTok', p_account_id, v_account.platform using errcode = '22023';
  end if;
  select count(*)::integer, min(created_at) into v_count, v_oldest from mdame.tiktok_calls
   where account_id = p_account_id and call_kind = p_call_kind
     and created_at > v_now - make_interval(secs => v_limit.per_seconds);
  if v_count >= v_limit.calls then
    raise exception 'TikTok account % made % % calls in the last % s (limit %)',
      v_account.channel_handle, v_count, p_call_kind, v_limit.per_seconds, v_limit.calls
      using errcode = 'MDQ04',
            detail = jsonb_build_object('not_before', v_oldest + make_interval(secs => v_limit.per_seconds),
                                        'call_kind', p_call_kind, 'calls', v_count, 'limit', v_limit.calls)::text;
  end if;
  delete from mdame.tiktok_calls where account_id = p_account_id and created_at < v_now - interval '1 day';
  insert into mdame.tiktok_calls (account_id, call_kind, created_at) values (p_account_id, p_call_kind, v_now)
  returning * into v_call;
  return v_call;
end;
$$;

revoke all on function mdame.reserve_tiktok_call(uuid,text) from public, anon, authenticated;
grant execute on function mdame.reserve_tiktok_call(uuid,text) to mdame_engine;
grant execute on function mdame.reserve_tiktok_call(uuid,text) to service_role;

-- The account of a channel on a dimension, created on first connect; unique per dimension,
-- platform and channel handle. A reconnect updates the channel id and keeps the account's id
-- (its publications stay its own) and whether it is paused. The caller seals the credentials for
-- the returned id and stores them with store_account_credentials in the same transaction.
-- p_oauth_client_id is the OAuth client the grant was made through: for YouTube the Google project
-- whose quota the account spends (recorded in mdame.youtube_projects on first sight; a reconnect
-- through another client moves the account to that project), for TikTok the client key. Accounts
-- are on youtube or tiktok (22023 otherwise).

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
  if p_platform is null or p_platform not in ('youtube', 'tiktok') then
    raise exception 'no platform %: accounts are on youtube or tiktok', coalesce(p_platform, '(none)') using errcode = '22023';
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

revoke all on function mdame.connect_account(text,text,text,text,text) from public, anon, authenticated;
grant execute on function mdame.connect_account(text,text,text,text,text) to mdame_engine;
grant execute on function mdame.connect_account(text,text,text,text,text) to service_role;

-- Defers one publication: its account cannot publish now (quota_spent, channel_cap, rate_limited:
-- a platform's quota, cap or rate window) or until the operator reconnects it (needs_reconnect,
-- p_not_before null). The publication keeps its stored
-- upload session, so a deferred upload that had started resumes the same session later. A
-- published publication is returned unchanged. Locks the unit, then the publication, as
-- record_publication does.

create or replace function mdame.defer_publication(p_publication_id uuid, p_reason text, p_not_before timestamp with time zone)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_unit mdame.work_units;
begin
  if p_reason is null or p_reason not in ('quota_spent', 'channel_cap', 'rate_limited', 'needs_reconnect') then
    raise exception 'unknown deferral reason %', p_reason using errcode = '22023';
  end if;
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_unit from mdame.work_units where id = v_pub.unit_id for update;
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if v_pub.status = 'published' then
    return v_pub;
  end if;
  update mdame.publications
     set status = 'deferred', deferred_reason = p_reason, not_before = p_not_before, updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'publish', 'publication_deferred', jsonb_build_object(
    'publication_id', v_pub.id, 'account_id', v_pub.account_id, 'reason', p_reason, 'not_before', p_not_before));
  return v_pub;
end;
$$;

revoke all on function mdame.defer_publication(uuid,text,timestamp with time zone) from public, anon, authenticated;
grant execute on function mdame.defer_publication(uuid,text,timestamp with time zone) to mdame_engine;
grant execute on function mdame.defer_publication(uuid,text,timestamp with time zone) to service_role;

select mdame.restrict_function_privileges();
