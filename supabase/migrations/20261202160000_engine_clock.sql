-- The engine's clock for YouTube's quota days (mdame.engine_now): now(), moved by a dev database's
-- settings key clock_offset (mdame.set_engine_clock). The quota ledger, the upload windows and the
-- drain of deferred publications read it, so an accelerated soak passes Pacific midnights.

-- The engine's clock for YouTube's quota days: the transaction's now(), moved forward or back by
-- the offset recorded under settings key clock_offset, and only in a dev database (settings key
-- env = dev). The quota ledger, the channels' 24-hour upload windows and the drain of deferred
-- publications read it, so the soak's accelerated days pass YouTube's Pacific midnights as real
-- days do. In any other environment the offset is ignored and the clock is now().

create or replace function mdame.engine_now()
returns timestamp with time zone
language sql
stable security definer
set search_path = ''
as $$
  select now() + coalesce((select o.value::interval from mdame.settings o
                            where o.key = 'clock_offset'
                              and exists (select 1 from mdame.settings e where e.key = 'env' and e.value = 'dev')),
                          interval '0');
$$;

revoke all on function mdame.engine_now() from public, anon, authenticated;
grant execute on function mdame.engine_now() to mdame_engine;
grant execute on function mdame.engine_now() to service_role;

-- Moves the engine's clock (mdame.engine_now) to now() + p_offset; null or zero puts it back on
-- now(). Only a dev database takes it (MDE01 otherwise): a production ledger runs on the real clock.
-- Returns the engine's time after the move.

create or replace function mdame.set_engine_clock(p_offset interval)
returns timestamp with time zone
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_env text;
begin
  select value into v_env from mdame.settings where key = 'env';
  if v_env is distinct from 'dev' then
    raise exception 'the engine clock moves only in a dev database; this one records env %', coalesce(v_env, '(none)')
      using errcode = 'MDE01';
  end if;
  if p_offset is null or p_offset = interval '0' then
    delete from mdame.settings where key = 'clock_offset';
  else
    insert into mdame.settings (key, value, updated_at) values ('clock_offset', p_offset::text, now())
    on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at;
  end if;
  return mdame.engine_now();
end;
$$;

revoke all on function mdame.set_engine_clock(interval) from public, anon, authenticated;
grant execute on function mdame.set_engine_clock(interval) to mdame_engine;
grant execute on function mdame.set_engine_clock(interval) to service_role;

-- Reserves one YouTube call before it is made: its cost (mdame.youtube_call_costs) from the bucket
-- of the account's Google project for the current Pacific quota day and, for videos.insert, a place
-- in the channel's rolling 24-hour upload cap, both on the engine's clock (mdame.engine_now). The project row is locked first, so two publishers
-- racing for the last unit are served one after the other and exactly one gets it. A publication's
-- call is reserved once: a repeat (a resumed upload) returns the reservation it already holds.
-- Refusals carry, in their DETAIL, a JSON object with not_before, the instant the account may try
-- again: MDQ02 when the bucket is spent (the next Pacific midnight), MDQ03 when the channel's cap
-- is reached (when the oldest upload of the window ages out, or the time YouTube's refusal set).

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
  v_now timestamptz := mdame.engine_now();
  v_day date := mdame.youtube_quota_day(v_now);
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
    v_window := mdame.channel_upload_window(p_account_id, v_now);
    if v_account.upload_cap_full_until > v_now or v_window.uploads >= v_account.upload_cap_24h then
      v_not_before := greatest(v_account.upload_cap_full_until,
                               case when v_window.uploads >= v_account.upload_cap_24h then v_window.oldest_ages_out end);
      raise exception 'channel % reached its upload cap (% in the last 24 hours, cap %)',
        v_account.channel_handle, v_window.uploads, v_account.upload_cap_24h
        using errcode = 'MDQ03',
              detail = jsonb_build_object('not_before', v_not_before, 'cap', v_account.upload_cap_24h, 'uploads', v_window.uploads)::text;
    end if;
  end if;

  insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, created_at)
  values (v_project.oauth_client_id, p_account_id, p_publication_id, p_call_kind, v_cost.bucket, v_cost.cost, v_day, v_now)
  returning * into v_entry;
  return v_entry;
end;
$$;

revoke all on function mdame.reserve_youtube_call(uuid,text,uuid) from public, anon, authenticated;
grant execute on function mdame.reserve_youtube_call(uuid,text,uuid) to mdame_engine;
grant execute on function mdame.reserve_youtube_call(uuid,text,uuid) to service_role;

-- YouTube refused a reserved call because of its own count, which the ledger may not know in full
-- (calls made by other tools through the same project, web and mobile uploads on the channel).
-- The refused call is released, then the ledger is corrected and the instant the account may try
-- again is returned (on the engine's clock, mdame.engine_now):
-- - quotaExceeded (403, domain youtube.quota): the call's bucket is filled for the rest of the
--   quota day (a correction row), so every account of the project waits for the Pacific midnight;
-- - uploadLimitExceeded (400): the channel's 24-hour cap is lowered to the uploads the ledger counts
--   in the window (at least 1) and the channel takes no upload until the oldest of them ages out,
--   or for 24 hours when the ledger counts none (the uploads YouTube counted were made elsewhere).

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
  v_now timestamptz := mdame.engine_now();
  v_day date := mdame.youtube_quota_day(v_now);
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
    update mdame.quota_ledger set status = 'released', settled_at = v_now where id = p_entry_id;
  end if;

  if p_reason = 'quotaExceeded' then
    v_size := case v_entry.bucket when 'uploads' then v_project.upload_calls_per_day else v_project.api_units_per_day end;
    select coalesce(sum(cost), 0) into v_used from mdame.quota_ledger
     where oauth_client_id = v_project.oauth_client_id and quota_day = v_day and bucket = v_entry.bucket and status <> 'released';
    if v_used < v_size then
      insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, entry, status, settled_at)
      values (v_project.oauth_client_id, v_account.id, null, v_entry.call_kind, v_entry.bucket, v_size - v_used, v_day, 'correction', 'settled', v_now);
    end if;
    v_not_before := mdame.youtube_quota_resets_at(v_day);
  else
    v_window := mdame.channel_upload_window(v_account.id, v_now);
    v_not_before := coalesce(v_window.oldest_ages_out, v_now + interval '24 hours');
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

-- The scheduled drain (pg_cron job mdame-publish-drain, every minute): each unit at stage deferred
-- with a deferred publication whose time has come (not_before passed on the engine's clock,
-- mdame.engine_now, or none) on an active, healthy, connected account goes back to stage publish
-- with its publish task sent again (the same step token; its publications keep their stored upload
-- sessions). The publish stage then tries its unpublished accounts again, and a bucket still spent
-- defers them again. Returns how many units were sent.

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
                      and a.credentials_enc is not null and coalesce(p.not_before, '-infinity') <= mdame.engine_now())
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

-- Settles a reserved call once YouTube accepted it (for an upload: the session was opened, so the
-- call counts whatever happens to the bytes). A repeat returns the row unchanged; a released call
-- cannot be settled (MDS01).

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
  update mdame.quota_ledger set status = 'settled', settled_at = mdame.engine_now() where id = p_entry_id returning * into v_entry;
  return v_entry;
end;
$$;

revoke all on function mdame.settle_youtube_call(uuid) from public, anon, authenticated;
grant execute on function mdame.settle_youtube_call(uuid) to mdame_engine;
grant execute on function mdame.settle_youtube_call(uuid) to service_role;

-- Gives a reserved call back to its bucket (and the channel's cap): the call failed before YouTube
-- accepted anything (the token was refused, the session could not be opened). A settled call is
-- spent for good (MDS01); a repeat returns the row unchanged.

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
  update mdame.quota_ledger set status = 'released', settled_at = mdame.engine_now() where id = p_entry_id returning * into v_entry;
  return v_entry;
end;
$$;

revoke all on function mdame.release_youtube_call(uuid) from public, anon, authenticated;
grant execute on function mdame.release_youtube_call(uuid) to mdame_engine;
grant execute on function mdame.release_youtube_call(uuid) to service_role;

select mdame.restrict_function_privileges();
