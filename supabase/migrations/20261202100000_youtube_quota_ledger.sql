-- YouTube quota by YouTube's own model (docs/distribution.md). Quota belongs to the Google project,
-- the OAuth client an account was connected through: a bucket of videos.insert calls (100 a day)
-- and a bucket of Data API units (10,000 a day), both reset at midnight America/Los_Angeles; each
-- channel also has a rolling 24-hour upload cap. The ledger (mdame.quota_ledger) replaces the
-- per-account units of mdame.quota_reservations (1,600 per upload against daily_quota_units), which
-- go: their reservations are kept as settled upload calls of project 'default', the project of
-- every account connected before the client id was recorded.
-- Publications an account cannot make now are deferred (status deferred, with a reason and a
-- not-before time) instead of failing their unit; a unit whose accounts are all published or
-- deferred waits at stage deferred, which closes its run, and the minutely drain sends it back to
-- publish when a deferral's time has come. Accounts whose grant Google refused are marked
-- needs_reconnect until the operator connects them again.

create table mdame.youtube_projects (
  oauth_client_id text not null,
  upload_calls_per_day integer not null default 100,
  api_units_per_day integer not null default 10000,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  constraint youtube_projects_pkey primary key (oauth_client_id),
  constraint youtube_projects_oauth_client_id_check check ((oauth_client_id <> ''::text)),
  constraint youtube_projects_upload_calls_per_day_check check ((upload_calls_per_day >= 0)),
  constraint youtube_projects_api_units_per_day_check check ((api_units_per_day >= 0))
);

comment on table mdame.youtube_projects is 'Google projects (OAuth clients) and the sizes of their daily YouTube buckets; project default holds accounts connected before the client was recorded.';

alter table mdame.youtube_projects enable row level security;

insert into mdame.youtube_projects (oauth_client_id) values ('default') on conflict do nothing;

create table mdame.youtube_call_costs (
  call_kind text not null,
  bucket text not null,
  cost integer not null,
  constraint youtube_call_costs_pkey primary key (call_kind),
  constraint youtube_call_costs_bucket_check check ((bucket = any (array['uploads'::text, 'units'::text]))),
  constraint youtube_call_costs_cost_check check ((cost > 0))
);

alter table mdame.youtube_call_costs enable row level security;

insert into mdame.youtube_call_costs (call_kind, bucket, cost) values
  ('videos.insert', 'uploads', 1),
  ('videos.list', 'units', 1),
  ('channels.list', 'units', 1),
  ('videoCategories.list', 'units', 1),
  ('videos.update', 'units', 50)
on conflict do nothing;

alter table mdame.dimension_accounts
  add column oauth_client_id text not null default 'default'::text,
  add column upload_cap_24h integer not null default 15,
  add column upload_cap_full_until timestamp with time zone,
  add column health_state text not null default 'ok'::text,
  add column health_reason text,
  add column health_since timestamp with time zone,
  add constraint dimension_accounts_health_state_check check ((health_state = any (array['ok'::text, 'needs_reconnect'::text]))),
  add constraint dimension_accounts_upload_cap_24h_check check ((upload_cap_24h > 0)),
  add constraint dimension_accounts_oauth_client_id_fkey foreign key (oauth_client_id) references mdame.youtube_projects(oauth_client_id);
comment on column mdame.dimension_accounts.oauth_client_id is 'The OAuth client (Google project) the account was connected through: whose YouTube quota its calls spend.';
comment on column mdame.dimension_accounts.upload_cap_24h is 'Uploads the channel may make in any 24 hours; 15 by default (YouTube publishes no figure), lowered when YouTube answers uploadLimitExceeded.';
comment on column mdame.dimension_accounts.upload_cap_full_until is 'Set when YouTube answered uploadLimitExceeded: the channel takes no upload before then (web and mobile uploads count too).';
comment on column mdame.dimension_accounts.health_state is 'ok, or needs_reconnect once Google refused the grant (invalid_grant, or a 401 after a fresh token); a connect clears it.';

alter table mdame.publications
  add column deferred_reason text,
  add column not_before timestamp with time zone,
  add column privacy_status text,
  drop constraint publications_status_check,
  add constraint publications_status_check check ((status = any (array['pending'::text, 'uploading'::text, 'published'::text, 'deferred'::text, 'failed'::text]))),
  add constraint publications_deferred_reason_check check ((deferred_reason = any (array['quota_spent'::text, 'channel_cap'::text, 'needs_reconnect'::text])));

create index publications_deferred_idx on mdame.publications (not_before) where (status = 'deferred'::text);
comment on column mdame.publications.not_before is 'A deferred publication is tried again from then on (null: once its account is reconnected).';
comment on column mdame.publications.privacy_status is 'The privacy YouTube gave the finished upload (status.privacyStatus); private when public was asked means YouTube locked it.';

alter table mdame.work_units
  drop constraint work_units_stage_check,
  add constraint work_units_stage_check check ((stage = any (array['script'::text, 'safety'::text, 'plan'::text, 'media'::text, 'render'::text, 'publish'::text, 'deferred'::text, 'published'::text, 'rejected'::text, 'failed'::text])));

create table mdame.quota_ledger (
  id uuid not null default gen_random_uuid(),
  oauth_client_id text not null,
  account_id uuid not null,
  publication_id uuid,
  call_kind text not null,
  bucket text not null,
  cost integer not null,
  quota_day date not null,
  entry text not null default 'call'::text,
  status text not null default 'reserved'::text,
  created_at timestamp with time zone not null default now(),
  settled_at timestamp with time zone,
  constraint quota_ledger_pkey primary key (id),
  constraint quota_ledger_bucket_check check ((bucket = any (array['uploads'::text, 'units'::text]))),
  constraint quota_ledger_cost_check check ((cost > 0)),
  constraint quota_ledger_entry_check check ((entry = any (array['call'::text, 'correction'::text]))),
  constraint quota_ledger_status_check check ((status = any (array['reserved'::text, 'settled'::text, 'released'::text]))),
  constraint quota_ledger_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id),
  constraint quota_ledger_call_kind_fkey foreign key (call_kind) references mdame.youtube_call_costs(call_kind),
  constraint quota_ledger_oauth_client_id_fkey foreign key (oauth_client_id) references mdame.youtube_projects(oauth_client_id),
  constraint quota_ledger_publication_id_fkey foreign key (publication_id) references mdame.publications(id)
);

create index quota_ledger_bucket_day_idx on mdame.quota_ledger (oauth_client_id, quota_day, bucket);
create index quota_ledger_account_uploads_idx on mdame.quota_ledger (account_id, created_at) where ((entry = 'call'::text) and (call_kind = 'videos.insert'::text));
create unique index quota_ledger_publication_call_idx on mdame.quota_ledger (publication_id, call_kind) where ((publication_id is not null) and (entry = 'call'::text) and (status <> 'released'::text));

alter table mdame.quota_ledger enable row level security;

insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, status, created_at, settled_at)
select a.oauth_client_id, r.account_id, r.publication_id, 'videos.insert', 'uploads', 1, mdame_youtube_day.day, 'settled', r.created_at, r.created_at
  from mdame.quota_reservations r
  join mdame.dimension_accounts a on a.id = r.account_id
  cross join lateral (select (r.created_at at time zone 'America/Los_Angeles')::date as day) as mdame_youtube_day;

drop function mdame.reserve_quota(uuid);
drop table mdame.quota_reservations;
alter table mdame.dimension_accounts drop column daily_quota_units;
delete from mdame.settings where key = 'youtube_upload_quota_units';

drop function mdame.connect_account(text,text,text,text);
drop function mdame.get_publish_targets(uuid);

create or replace function mdame.youtube_quota_day(p_at timestamp with time zone default now())
returns date
language sql
stable security definer
set search_path = ''
as $$
  select (p_at at time zone 'America/Los_Angeles')::date;
$$;

revoke all on function mdame.youtube_quota_day(timestamp with time zone) from public, anon, authenticated;
grant execute on function mdame.youtube_quota_day(timestamp with time zone) to mdame_engine;
grant execute on function mdame.youtube_quota_day(timestamp with time zone) to service_role;

create or replace function mdame.youtube_quota_resets_at(p_day date)
returns timestamp with time zone
language sql
stable security definer
set search_path = ''
as $$
  select ((p_day + 1)::timestamp without time zone) at time zone 'America/Los_Angeles';
$$;

revoke all on function mdame.youtube_quota_resets_at(date) from public, anon, authenticated;
grant execute on function mdame.youtube_quota_resets_at(date) to mdame_engine;
grant execute on function mdame.youtube_quota_resets_at(date) to service_role;

create or replace function mdame.channel_upload_window(p_account_id uuid, p_at timestamp with time zone, out uploads integer, out oldest_ages_out timestamp with time zone)
returns record
language sql
stable
set search_path = ''
as $$
  select count(*)::integer, min(l.created_at) + interval '24 hours'
    from mdame.quota_ledger l
   where l.account_id = p_account_id and l.entry = 'call' and l.call_kind = 'videos.insert'
     and l.status <> 'released' and l.created_at > p_at - interval '24 hours';
$$;

comment on function mdame.channel_upload_window(uuid,timestamp with time zone) is 'internal: the channel''s uploads in the rolling 24-hour window';

revoke all on function mdame.channel_upload_window(uuid,timestamp with time zone) from public, anon, authenticated;

create or replace function mdame.reserve_youtube_call(p_account_id uuid, p_call_kind text, p_publication_id uuid default null::uuid)
returns mdame.quota_ledger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_account mdame.dimension_accounts;
  v_project mdame.youtube_projects;
  v_cost mdame.youtube_call_costs;
  v_entry mdame.quota_ledger;
  v_day date := mdame.youtube_quota_day(now());
  v_size integer;
  v_used integer;
  v_window record;
  v_not_before timestamptz;
begin
  select * into v_cost from mdame.youtube_call_costs where call_kind = p_call_kind;
  if not found then
    raise exception 'no YouTube call kind %', p_call_kind using errcode = 'MDN01';
  end if;
  select * into v_account from mdame.dimension_accounts where id = p_account_id;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  select * into v_project from mdame.youtube_projects where oauth_client_id = v_account.oauth_client_id for update;
  select * into v_account from mdame.dimension_accounts where id = p_account_id for update;
  if p_publication_id is not null then
    if not exists (select 1 from mdame.publications where id = p_publication_id and account_id = p_account_id) then
      raise exception 'no publication % on account %', p_publication_id, p_account_id using errcode = 'MDN01';
    end if;
    select * into v_entry from mdame.quota_ledger
     where publication_id = p_publication_id and call_kind = p_call_kind and entry = 'call' and status <> 'released';
    if found then
      return v_entry;
    end if;
  end if;

  v_size := case v_cost.bucket when 'uploads' then v_project.upload_calls_per_day else v_project.api_units_per_day end;
  select coalesce(sum(cost), 0) into v_used from mdame.quota_ledger
   where oauth_client_id = v_project.oauth_client_id and quota_day = v_day and bucket = v_cost.bucket and status <> 'released';
  if v_used + v_cost.cost > v_size then
    raise exception 'the % bucket of Google project % is spent for quota day % (% of %); % needs %',
      v_cost.bucket, v_project.oauth_client_id, v_day, v_used, v_size, p_call_kind, v_cost.cost
      using errcode = 'MDQ02',
            detail = jsonb_build_object('not_before', mdame.youtube_quota_resets_at(v_day), 'bucket', v_cost.bucket,
                                        'oauth_client_id', v_project.oauth_client_id)::text;
  end if;

  if p_call_kind = 'videos.insert' then
    v_window := mdame.channel_upload_window(p_account_id, now());
    if v_account.upload_cap_full_until > now() or v_window.uploads >= v_account.upload_cap_24h then
      v_not_before := greatest(v_account.upload_cap_full_until,
                               case when v_window.uploads >= v_account.upload_cap_24h then v_window.oldest_ages_out end);
      raise exception 'channel % reached its upload cap (% in the last 24 hours, cap %)',
        v_account.channel_handle, v_window.uploads, v_account.upload_cap_24h
        using errcode = 'MDQ03',
              detail = jsonb_build_object('not_before', v_not_before, 'cap', v_account.upload_cap_24h, 'uploads', v_window.uploads)::text;
    end if;
  end if;

  insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day)
  values (v_project.oauth_client_id, p_account_id, p_publication_id, p_call_kind, v_cost.bucket, v_cost.cost, v_day)
  returning * into v_entry;
  return v_entry;
end;
$$;

revoke all on function mdame.reserve_youtube_call(uuid,text,uuid) from public, anon, authenticated;
grant execute on function mdame.reserve_youtube_call(uuid,text,uuid) to mdame_engine;
grant execute on function mdame.reserve_youtube_call(uuid,text,uuid) to service_role;

create or replace function mdame.settle_youtube_call(p_entry_id uuid)
returns mdame.quota_ledger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_entry mdame.quota_ledger;
begin
  select * into v_entry from mdame.quota_ledger where id = p_entry_id and entry = 'call' for update;
  if not found then
    raise exception 'no reserved YouTube call %', p_entry_id using errcode = 'MDN01';
  end if;
  if v_entry.status = 'released' then
    raise exception 'YouTube call % was released; it cannot be settled', p_entry_id using errcode = 'MDS01';
  end if;
  if v_entry.status = 'settled' then
    return v_entry;
  end if;
  update mdame.quota_ledger set status = 'settled', settled_at = now() where id = p_entry_id returning * into v_entry;
  return v_entry;
end;
$$;

revoke all on function mdame.settle_youtube_call(uuid) from public, anon, authenticated;
grant execute on function mdame.settle_youtube_call(uuid) to mdame_engine;
grant execute on function mdame.settle_youtube_call(uuid) to service_role;

create or replace function mdame.release_youtube_call(p_entry_id uuid)
returns mdame.quota_ledger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_entry mdame.quota_ledger;
begin
  select * into v_entry from mdame.quota_ledger where id = p_entry_id and entry = 'call' for update;
  if not found then
    raise exception 'no reserved YouTube call %', p_entry_id using errcode = 'MDN01';
  end if;
  if v_entry.status = 'settled' then
    raise exception 'YouTube call % was settled; YouTube counted it', p_entry_id using errcode = 'MDS01';
  end if;
  if v_entry.status = 'released' then
    return v_entry;
  end if;
  update mdame.quota_ledger set status = 'released', settled_at = now() where id = p_entry_id returning * into v_entry;
  return v_entry;
end;
$$;

revoke all on function mdame.release_youtube_call(uuid) from public, anon, authenticated;
grant execute on function mdame.release_youtube_call(uuid) to mdame_engine;
grant execute on function mdame.release_youtube_call(uuid) to service_role;

create or replace function mdame.record_youtube_refusal(p_entry_id uuid, p_reason text)
returns timestamp with time zone
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_entry mdame.quota_ledger;
  v_project mdame.youtube_projects;
  v_account mdame.dimension_accounts;
  v_day date := mdame.youtube_quota_day(now());
  v_size integer;
  v_used integer;
  v_window record;
  v_not_before timestamptz;
begin
  if p_reason is null or p_reason not in ('quotaExceeded', 'uploadLimitExceeded') then
    raise exception 'unknown YouTube refusal %', p_reason using errcode = '22023';
  end if;
  select * into v_entry from mdame.quota_ledger where id = p_entry_id and entry = 'call';
  if not found then
    raise exception 'no reserved YouTube call %', p_entry_id using errcode = 'MDN01';
  end if;
  select * into v_project from mdame.youtube_projects where oauth_client_id = v_entry.oauth_client_id for update;
  select * into v_account from mdame.dimension_accounts where id = v_entry.account_id for update;
  if (select status from mdame.quota_ledger where id = p_entry_id for update) = 'reserved' then
    update mdame.quota_ledger set status = 'released', settled_at = now() where id = p_entry_id;
  end if;

  if p_reason = 'quotaExceeded' then
    v_size := case v_entry.bucket when 'uploads' then v_project.upload_calls_per_day else v_project.api_units_per_day end;
    select coalesce(sum(cost), 0) into v_used from mdame.quota_ledger
     where oauth_client_id = v_project.oauth_client_id and quota_day = v_day and bucket = v_entry.bucket and status <> 'released';
    if v_used < v_size then
      insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, entry, status, settled_at)
      values (v_project.oauth_client_id, v_account.id, null, v_entry.call_kind, v_entry.bucket, v_size - v_used, v_day, 'correction', 'settled', now());
    end if;
    v_not_before := mdame.youtube_quota_resets_at(v_day);
  else
    v_window := mdame.channel_upload_window(v_account.id, now());
    v_not_before := coalesce(v_window.oldest_ages_out, now() + interval '24 hours');
    update mdame.dimension_accounts
       set upload_cap_24h = least(upload_cap_24h, greatest(v_window.uploads, 1)),
           upload_cap_full_until = greatest(upload_cap_full_until, v_not_before),
           updated_at = now()
     where id = v_account.id;
  end if;
  perform mdame.log_event(null, null, 'publish', 'youtube_refusal', jsonb_build_object(
    'reason', p_reason, 'account_id', v_account.id, 'channel_handle', v_account.channel_handle,
    'oauth_client_id', v_project.oauth_client_id, 'call_kind', v_entry.call_kind, 'not_before', v_not_before));
  return v_not_before;
end;
$$;

revoke all on function mdame.record_youtube_refusal(uuid,text) from public, anon, authenticated;
grant execute on function mdame.record_youtube_refusal(uuid,text) to mdame_engine;
grant execute on function mdame.record_youtube_refusal(uuid,text) to service_role;

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
  if p_reason is null or p_reason not in ('quota_spent', 'channel_cap', 'needs_reconnect') then
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

create or replace function mdame.mark_account_needs_reconnect(p_account_id uuid, p_reason text)
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_row.health_state = 'needs_reconnect' then
    return v_row;
  end if;
  update mdame.dimension_accounts
     set health_state = 'needs_reconnect', health_reason = left(coalesce(p_reason, 'grant refused'), 500), health_since = now(), updated_at = now()
   where id = p_account_id
  returning * into v_row;
  perform mdame.log_event(null, null, 'publish', 'account_needs_reconnect', jsonb_build_object(
    'account_id', v_row.id, 'dimension_id', v_row.dimension_id, 'channel_handle', v_row.channel_handle, 'reason', v_row.health_reason,
    'fix', format('mdame account connect %s --dimension %s --channel %s', v_row.platform, v_row.dimension_id, v_row.channel_handle)));
  return v_row;
end;
$$;

revoke all on function mdame.mark_account_needs_reconnect(uuid,text) from public, anon, authenticated;
grant execute on function mdame.mark_account_needs_reconnect(uuid,text) to mdame_engine;
grant execute on function mdame.mark_account_needs_reconnect(uuid,text) to service_role;

create or replace function mdame.record_publication_privacy(p_publication_id uuid, p_privacy_status text, p_requested text)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_run uuid;
begin
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  if v_pub.privacy_status is not null or p_privacy_status is null then
    return v_pub;
  end if;
  update mdame.publications set privacy_status = p_privacy_status, updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  if p_privacy_status is distinct from p_requested then
    select run_id into v_run from mdame.work_units where id = v_pub.unit_id;
    perform mdame.log_event(v_run, v_pub.unit_id, 'publish', 'publication_locked_private', jsonb_build_object(
      'publication_id', v_pub.id, 'account_id', v_pub.account_id, 'external_id', v_pub.external_id,
      'requested', p_requested, 'privacy_status', p_privacy_status));
  end if;
  return v_pub;
end;
$$;

revoke all on function mdame.record_publication_privacy(uuid,text,text) from public, anon, authenticated;
grant execute on function mdame.record_publication_privacy(uuid,text,text) to mdame_engine;
grant execute on function mdame.record_publication_privacy(uuid,text,text) to service_role;

create or replace function mdame.list_locked_publications(p_limit integer default 20)
returns table(publication_id uuid, account_id uuid, dimension_id text, channel_handle text, external_id text, privacy_status text, published_at timestamp with time zone)
language sql
stable security definer
set search_path = ''
as $$
  select p.id, a.id, a.dimension_id, a.channel_handle, p.external_id, p.privacy_status, p.published_at
    from mdame.publications p
    join mdame.dimension_accounts a on a.id = p.account_id
   where p.privacy_status is not null and p.privacy_status <> 'public'
   order by p.published_at desc nulls last, p.id
   limit greatest(coalesce(p_limit, 20), 0);
$$;

revoke all on function mdame.list_locked_publications(integer) from public, anon, authenticated;
grant execute on function mdame.list_locked_publications(integer) to mdame_engine;
grant execute on function mdame.list_locked_publications(integer) to service_role;

create or replace function mdame.defer_unit_publish(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_open integer;
  v_deferred integer;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  select count(*) filter (where p.status is distinct from 'published' and p.status is distinct from 'deferred'),
         count(*) filter (where p.status = 'deferred')
    into v_open, v_deferred
    from mdame.dimension_accounts a
    left join mdame.publications p on p.unit_id = p_unit_id and p.account_id = a.id
   where a.dimension_id = (v_lock.unit).dimension_id and a.active;
  if v_open > 0 then
    raise exception 'unit % has % account(s) neither published nor deferred', p_unit_id, v_open using errcode = 'MDS01';
  end if;
  if v_deferred = 0 then
    perform mdame.store_step_result(p_step_token, (select jsonb_agg(jsonb_build_object('platform', platform, 'external_id', external_id))
                                                     from mdame.publications where unit_id = p_unit_id));
    v_unit := mdame.set_unit_stage(p_unit_id, 'published');
  else
    v_unit := mdame.set_unit_stage(p_unit_id, 'deferred');
  end if;
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;

revoke all on function mdame.defer_unit_publish(bigint,uuid,text,text) from public, anon, authenticated;
grant execute on function mdame.defer_unit_publish(bigint,uuid,text,text) to mdame_engine;
grant execute on function mdame.defer_unit_publish(bigint,uuid,text,text) to service_role;

create or replace function mdame.drain_deferred_publications()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_sent integer := 0;
begin
  for v_unit in
    select u.* from mdame.work_units u
     where u.stage = 'deferred'
       and exists (select 1 from mdame.publications p join mdame.dimension_accounts a on a.id = p.account_id
                    where p.unit_id = u.id and p.status = 'deferred' and a.active and a.health_state = 'ok'
                      and a.credentials_enc is not null and coalesce(p.not_before, '-infinity') <= now())
     order by u.updated_at
     for update of u skip locked
  loop
    perform mdame.set_unit_stage(v_unit.id, 'publish');
    perform mdame.enqueue_stage_task('publish', v_unit.run_id, v_unit.id);
    v_sent := v_sent + 1;
  end loop;
  return v_sent;
end;
$$;

revoke all on function mdame.drain_deferred_publications() from public, anon, authenticated;
grant execute on function mdame.drain_deferred_publications() to mdame_engine;
grant execute on function mdame.drain_deferred_publications() to service_role;

create or replace function mdame.close_run_if_done(p_run_id uuid)
returns mdame.pipeline_runs
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_failed_ingest integer;
  v_published integer;
  v_deferred integer;
  v_units integer;
  v_next uuid;
begin
  -- no key update: child rows written in this transaction hold key-share locks on the run, which
  -- this must not wait on (two units closing at once would deadlock).
  select * into v_run from mdame.pipeline_runs where id = p_run_id for no key update;
  if not found then
    raise exception 'no run %', p_run_id using errcode = 'MDN01';
  end if;
  if v_run.status <> 'running' then
    return v_run;
  end if;
  if exists (select 1 from mdame.run_dimensions where run_id = p_run_id and status = 'queued') then
    perform mdame.start_queued_run(p_run_id);
    return v_run;
  end if;
  if exists (select 1 from mdame.run_dimensions where run_id = p_run_id and status = 'ingesting')
     or exists (select 1 from mdame.work_units where run_id = p_run_id and stage not in ('published', 'deferred', 'rejected', 'failed')) then
    return v_run;
  end if;

  select count(*) filter (where status = 'failed') into v_failed_ingest from mdame.run_dimensions where run_id = p_run_id;
  select count(*), count(*) filter (where stage = 'published'), count(*) filter (where stage = 'deferred')
    into v_units, v_published, v_deferred from mdame.work_units where run_id = p_run_id;

  update mdame.pipeline_runs
     set status = case when v_failed_ingest > 0 or (v_units > 0 and v_published + v_deferred = 0 and exists (
                          select 1 from mdame.work_units where run_id = p_run_id and stage = 'failed')) then 'failed'
                       else 'completed' end,
         error = case when v_failed_ingest > 0 then v_failed_ingest || ' dimension(s) failed to ingest' end,
         finished_at = now(),
         updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.release_lock('pipeline:' || v_run.env, v_run.id::text);
  perform mdame.log_event(v_run.id, null, null, 'run_' || v_run.status,
    jsonb_build_object('units', v_units, 'published', v_published, 'deferred', v_deferred));

  select r.id into v_next from mdame.pipeline_runs r
   where r.env = v_run.env and r.status = 'running'
     and exists (select 1 from mdame.run_dimensions rd where rd.run_id = r.id and rd.status = 'queued')
   order by r.created_at
   limit 1;
  if v_next is not null then
    perform mdame.start_queued_run(v_next);
  end if;
  return v_run;
end;
$$;

comment on function mdame.close_run_if_done(uuid) is 'internal: closes a run when its last unit is terminal';

revoke all on function mdame.close_run_if_done(uuid) from public, anon, authenticated;

create or replace function mdame.set_unit_stage(p_unit_id uuid, p_stage text, p_error text default null::text)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
begin
  update mdame.work_units u
     set stage = p_stage,
         stage_attempts = 0,
         stage_deadline = case when p_stage in ('published', 'deferred', 'rejected', 'failed') then null
                               else now() + make_interval(secs => coalesce(
                                 (select deadline_s from mdame.stage_policies where stage = case p_stage when 'media' then 'visual_generation' else p_stage end), 3600)) end,
         error = coalesce(p_error, u.error),
         updated_at = now()
   where u.id = p_unit_id
  returning * into v_unit;
  perform mdame.log_event(v_unit.run_id, v_unit.id, p_stage, 'stage_entered', jsonb_strip_nulls(jsonb_build_object('error', p_error)));
  return v_unit;
end;
$$;

comment on function mdame.set_unit_stage(uuid,text,text) is 'internal: moves a unit without checking its stage or lease';

revoke all on function mdame.set_unit_stage(uuid,text,text) from public, anon, authenticated;

create or replace function mdame.fail_stage_task(p_msg_id bigint, p_stage text, p_unit_id uuid, p_run_id uuid, p_dimension_id text, p_error text, p_retriable boolean, p_holder text default null::text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_msg record;
  v_unit mdame.work_units;
  v_outcome text;
begin
  if p_unit_id is not null then
    select * into v_unit from mdame.work_units where id = p_unit_id for update;
  end if;
  select msg_id, read_ct, message into v_msg from pgmq.q_stage_tasks where msg_id = p_msg_id for update;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  if v_unit.stage in ('published', 'deferred', 'rejected', 'failed') then
    perform mdame.archive_stage_task(p_msg_id);
    return 'gone';
  end if;
  if p_holder is not null and (not mdame.holds_stage_claim(p_holder, p_msg_id, v_msg.read_ct)
                               or (v_unit.id is not null and v_unit.lease_holder is distinct from p_holder)) then
    return 'stale';
  end if;
  v_outcome := mdame.retry_or_dead_letter('stage_tasks', p_stage, p_msg_id, v_msg.read_ct, v_msg.message,
                                          p_unit_id, p_run_id, p_error, p_retriable);
  if v_outcome = 'dead_letter' and p_unit_id is null and p_dimension_id is not null then
    update mdame.run_dimensions set status = 'failed', updated_at = now()
     where run_id = p_run_id and dimension_id = p_dimension_id and status = 'ingesting';
  end if;
  if v_outcome = 'dead_letter' and p_run_id is not null then
    perform mdame.close_run_if_done(p_run_id);
  end if;
  return v_outcome;
end;
$$;

revoke all on function mdame.fail_stage_task(bigint,text,uuid,uuid,text,text,boolean,text) from public, anon, authenticated;
grant execute on function mdame.fail_stage_task(bigint,text,uuid,uuid,text,text,boolean,text) to mdame_engine;
grant execute on function mdame.fail_stage_task(bigint,text,uuid,uuid,text,text,boolean,text) to service_role;

create or replace function mdame.claim_stage_tasks(p_worker text, p_qty integer, p_vt_s integer)
returns table(msg_id bigint, read_ct integer, message jsonb, lease_holder text, completed_result jsonb)
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = 'force_generic_plan'
as $$
#variable_conflict use_column
declare
  v_ids bigint[];
  v_msg record;
  v_holder text;
  v_limit integer;
begin
  select array_agg(s.msg_id) into v_ids from (
    select q.msg_id from pgmq.q_stage_tasks q
     where q.vt <= clock_timestamp()
     order by q.msg_id
     limit p_qty
       for update skip locked) as s;
  if v_ids is null then
    return;
  end if;
  for v_msg in
    with claimed as (
      update pgmq.q_stage_tasks q
         set vt = clock_timestamp() + make_interval(secs => p_vt_s), read_ct = q.read_ct + 1
       where q.msg_id = any (v_ids)
      returning q.msg_id, q.read_ct, q.vt, q.message
    )
    select * from claimed order by claimed.msg_id
  loop
    if v_msg.read_ct > 1 then
      select p.max_attempts into v_limit from mdame.stage_policies p where p.stage = v_msg.message->>'stage';
      if v_msg.read_ct > v_limit then
        begin
          perform mdame.fail_stage_task(v_msg.msg_id, v_msg.message->>'stage', (v_msg.message->>'unit_id')::uuid,
            (v_msg.message->>'run_id')::uuid, v_msg.message->>'dimension_id',
            format('read %s times without a result (limit %s): the runner stopped before reporting each time', v_msg.read_ct, v_limit),
            false);
        exception when invalid_text_representation then
          -- Ids that are not uuids: nothing to fail but the message itself.
          perform mdame.retry_or_dead_letter('stage_tasks', v_msg.message->>'stage', v_msg.msg_id, v_msg.read_ct, v_msg.message,
            null, null, format('read %s times without a result (limit %s), and its ids are not uuids', v_msg.read_ct, v_limit), false);
        end;
        continue;
      end if;
    end if;
    v_holder := p_worker || '/' || v_msg.msg_id || '/' || v_msg.read_ct;
    if v_msg.message ? 'unit_id' then
      update mdame.work_units u
         set lease_holder = v_holder, lease_expires_at = v_msg.vt
       where u.id = (v_msg.message->>'unit_id')::uuid and u.stage not in ('published', 'deferred', 'rejected', 'failed');
    end if;
    msg_id := v_msg.msg_id;
    read_ct := v_msg.read_ct;
    message := v_msg.message;
    lease_holder := v_holder;
    completed_result := (select r.result from mdame.step_results r where r.step_token = v_msg.message->>'step_token');
    return next;
  end loop;
end;
$$;

revoke all on function mdame.claim_stage_tasks(text,integer,integer) from public, anon, authenticated;
grant execute on function mdame.claim_stage_tasks(text,integer,integer) to mdame_engine;
grant execute on function mdame.claim_stage_tasks(text,integer,integer) to service_role;

create or replace function mdame.tick()
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_queue text;
  v_msg record;
  v_unit mdame.work_units;
  v_policy mdame.stage_policies;
  v_run mdame.pipeline_runs;
  v_dead integer := 0;
  v_closed integer := 0;
  v_visible bigint;
  v_recovery jsonb;
begin
  -- Runs as the function's caller: the recovery pass is defined in a later migration.
  v_recovery := mdame.recover_overdue_work();
  foreach v_queue in array array['visual_generation', 'render'] loop
    select * into v_policy from mdame.stage_policies where stage = v_queue;
    for v_msg in execute format(
      'select msg_id, read_ct, message from pgmq.%I where read_ct >= $1 and vt <= now() for update skip locked', 'q_' || v_queue)
      using v_policy.max_attempts
    loop
      -- skip locked: a completion holding the unit is finishing this very job; never wait on it.
      select * into v_unit from mdame.work_units where id = (v_msg.message->>'unit_id')::uuid for update skip locked;
      if v_unit.id is null and exists (select 1 from mdame.work_units where id = (v_msg.message->>'unit_id')::uuid) then
        continue;
      end if;
      if v_unit.id is null or v_unit.stage in ('published', 'deferred', 'rejected', 'failed') then
        perform pgmq.archive(v_queue, v_msg.msg_id);
      else
        perform mdame.retry_or_dead_letter(v_queue, v_queue, v_msg.msg_id, v_msg.read_ct, v_msg.message,
                                           v_unit.id, v_unit.run_id, 'attempts exhausted without a completion', false);
        v_dead := v_dead + 1;
      end if;
    end loop;
  end loop;

  for v_run in select * from mdame.pipeline_runs where status = 'running' order by created_at loop
    if (mdame.close_run_if_done(v_run.id)).status <> 'running' then
      v_closed := v_closed + 1;
    else
      update mdame.system_locks set lease_expires_at = now() + interval '1 hour'
       where name = 'pipeline:' || v_run.env and holder = v_run.id::text;
    end if;
  end loop;

  select count(*) into v_visible from pgmq.q_stage_tasks where vt <= now();
  if v_visible > 0 then
    perform mdame.wake_stage_runner('tick');
  end if;
  return jsonb_build_object('recovery', v_recovery, 'dead_lettered', v_dead, 'runs_closed', v_closed, 'stage_tasks_visible', v_visible);
end;
$$;

revoke all on function mdame.tick() from public, anon, authenticated;
grant execute on function mdame.tick() to mdame_engine;
grant execute on function mdame.tick() to service_role;

create or replace function mdame.remove_account(p_account_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
  v_publications integer;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  select count(*) into v_publications from mdame.publications where account_id = p_account_id;
  if v_publications > 0 or exists (select 1 from mdame.quota_ledger where account_id = p_account_id) then
    update mdame.dimension_accounts
       set credentials_enc = null, active = false, connected_at = null, updated_at = now()
     where id = p_account_id;
    return jsonb_build_object('account_id', p_account_id, 'deleted', false, 'publications', v_publications);
  end if;
  delete from mdame.dimension_accounts where id = p_account_id;
  return jsonb_build_object('account_id', p_account_id, 'deleted', true, 'publications', 0);
end;
$$;

revoke all on function mdame.remove_account(uuid) from public, anon, authenticated;
grant execute on function mdame.remove_account(uuid) to mdame_engine;
grant execute on function mdame.remove_account(uuid) to service_role;

create or replace function mdame.get_run_status(p_run_id uuid)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select jsonb_build_object(
    'run', to_jsonb(r) - 'idempotency_key',
    'dimensions', coalesce((select jsonb_agg(to_jsonb(rd) - 'run_id' order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = r.id), '[]'::jsonb),
    'units', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', u.id, 'dimension_id', u.dimension_id, 'stage', u.stage, 'title', coalesce(u.script->>'title', u.topic->>'title'),
        'error', u.error, 'updated_at', u.updated_at,
        'scenes_ready', (select count(*) from mdame.scenes s where s.unit_id = u.id and s.status = 'ready'),
        'scenes_total', (select count(*) from mdame.scenes s where s.unit_id = u.id),
        'video', u.video,
        'quality', u.quality,
        'publications', coalesce((select jsonb_agg(jsonb_build_object('platform', p.platform, 'status', p.status, 'external_id', p.external_id,
                                      'deferred_reason', p.deferred_reason, 'not_before', p.not_before, 'privacy_status', p.privacy_status))
                                    from mdame.publications p where p.unit_id = u.id), '[]'::jsonb)
      ) order by u.dimension_id, u.created_at)
      from mdame.work_units u where u.run_id = r.id), '[]'::jsonb))
  from mdame.pipeline_runs r
  where r.id = p_run_id;
$$;

revoke all on function mdame.get_run_status(uuid) from public, anon, authenticated;
grant execute on function mdame.get_run_status(uuid) to mdame_engine;
grant execute on function mdame.get_run_status(uuid) to service_role;

create or replace function mdame.get_publish_targets(p_unit_id uuid)
returns table(account_id uuid, platform text, channel_handle text, credentials_enc text, health_state text)
language sql
stable security definer
set search_path = ''
as $$
  select a.id, a.platform, a.channel_handle, a.credentials_enc, a.health_state
    from mdame.work_units u
    join mdame.dimension_accounts a on a.dimension_id = u.dimension_id and a.active
   where u.id = p_unit_id
   order by a.id;
$$;

revoke all on function mdame.get_publish_targets(uuid) from public, anon, authenticated;
grant execute on function mdame.get_publish_targets(uuid) to mdame_engine;
grant execute on function mdame.get_publish_targets(uuid) to service_role;

create or replace function mdame.store_account_credentials(p_account_id uuid, p_credentials_enc text)
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
  v_was text;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if p_credentials_enc is null or p_credentials_enc !~ '^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$' then
    raise exception 'credentials must be sealed (v1.<iv>.<ciphertext>)' using errcode = '22023';
  end if;
  v_was := v_row.health_state;
  update mdame.dimension_accounts
     set credentials_enc = p_credentials_enc, connected_at = now(), updated_at = now(),
         health_state = 'ok', health_reason = null,
         health_since = case when health_state = 'ok' then health_since else now() end
   where id = p_account_id
  returning * into v_row;
  if v_was = 'needs_reconnect' then
    perform mdame.log_event(null, null, null, 'account_reconnected', jsonb_build_object('account_id', v_row.id, 'dimension_id', v_row.dimension_id));
  end if;
  return v_row;
end;
$$;

revoke all on function mdame.store_account_credentials(uuid,text) from public, anon, authenticated;
grant execute on function mdame.store_account_credentials(uuid,text) to mdame_engine;
grant execute on function mdame.store_account_credentials(uuid,text) to service_role;

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
  insert into mdame.youtube_projects (oauth_client_id) values (p_oauth_client_id) on conflict do nothing;
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

do $$
begin
  if not exists (select 1 from cron.job where jobname = 'mdame-publish-drain') then
    perform cron.schedule('mdame-publish-drain', '* * * * *', 'select mdame.drain_deferred_publications()');
  end if;
end
$$;

select mdame.restrict_function_privileges();
