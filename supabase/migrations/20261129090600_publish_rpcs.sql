-- Distribution: one publication per (unit, account), quota reserved before the upload, the
-- resumable session URI stored before the first byte.

insert into mdame.settings (key, value) values ('youtube_upload_quota_units', '1600') on conflict do nothing;

-- Active accounts of the unit's dimension, with their sealed credentials (decrypted in the caller's memory only).
create function mdame.get_publish_targets(p_unit_id uuid)
returns table (account_id uuid, platform text, channel_handle text, credentials_enc text)
language sql
stable
set search_path = ''
as $$
  select a.id, a.platform, a.channel_handle, a.credentials_enc
    from mdame.work_units u
    join mdame.dimension_accounts a on a.dimension_id = u.dimension_id and a.active
   where u.id = p_unit_id
   order by a.id;
$$;

-- Returns the unit's publication for the account, creating it on the first call.
create function mdame.begin_publication(p_unit_id uuid, p_account_id uuid)
returns mdame.publications
language plpgsql
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_unit mdame.work_units;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if v_unit.video is null then
    raise exception 'work unit % has no rendered video', p_unit_id using errcode = 'MDS01';
  end if;
  insert into mdame.publications (unit_id, account_id, platform, video_key)
  select p_unit_id, a.id, a.platform, v_unit.video->>'video_key'
    from mdame.dimension_accounts a where a.id = p_account_id and a.dimension_id = v_unit.dimension_id
  on conflict (unit_id, account_id) do nothing;
  select * into v_pub from mdame.publications where unit_id = p_unit_id and account_id = p_account_id;
  if not found then
    raise exception 'account % does not belong to the dimension of unit %', p_account_id, p_unit_id using errcode = 'MDN01';
  end if;
  return v_pub;
end;
$$;

-- Reserves the upload's quota for the account's current UTC day, once per publication.
create function mdame.reserve_quota(p_publication_id uuid)
returns mdame.quota_reservations
language plpgsql
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_res mdame.quota_reservations;
  v_account mdame.dimension_accounts;
  v_units integer;
  v_used integer;
  v_day date := (now() at time zone 'utc')::date;
begin
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_res from mdame.quota_reservations where publication_id = p_publication_id;
  if found then
    return v_res;
  end if;
  select * into v_account from mdame.dimension_accounts where id = v_pub.account_id for update;
  select value::integer into v_units from mdame.settings where key = 'youtube_upload_quota_units';
  select coalesce(sum(units), 0) into v_used from mdame.quota_reservations where account_id = v_account.id and usage_date = v_day;
  if v_used + v_units > v_account.daily_quota_units then
    raise exception 'account % has % of % quota units left today, an upload needs %',
      v_account.channel_handle, v_account.daily_quota_units - v_used, v_account.daily_quota_units, v_units using errcode = 'MDQ01';
  end if;
  insert into mdame.quota_reservations (publication_id, account_id, usage_date, units)
  values (p_publication_id, v_account.id, v_day, v_units)
  returning * into v_res;
  return v_res;
end;
$$;

-- Stores the resumable session URI once; a second call keeps the first URI.
create function mdame.record_upload_session(p_publication_id uuid, p_session_uri text)
returns mdame.publications
language plpgsql
set search_path = ''
as $$
declare
  v_pub mdame.publications;
begin
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  if v_pub.status = 'published' or v_pub.upload_session_uri is not null then
    return v_pub;
  end if;
  update mdame.publications set upload_session_uri = p_session_uri, status = 'uploading', updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  return v_pub;
end;
$$;

-- Forgets an expired session URI so the next attempt opens a new one (the platform kept no bytes).
create function mdame.clear_upload_session(p_publication_id uuid, p_session_uri text)
returns mdame.publications
language plpgsql
set search_path = ''
as $$
declare
  v_pub mdame.publications;
begin
  update mdame.publications set upload_session_uri = null, status = 'pending', updated_at = now()
   where id = p_publication_id and upload_session_uri = p_session_uri and status = 'uploading'
  returning * into v_pub;
  if not found then
    select * into v_pub from mdame.publications where id = p_publication_id;
  end if;
  return v_pub;
end;
$$;

-- Marks one publication done; when every active account of the dimension has it, the unit is
-- published and the publish task archived.
create function mdame.complete_publication(p_msg_id bigint, p_publication_id uuid, p_external_id text, p_step_token text, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(v_pub.unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if v_pub.status <> 'published' then
    update mdame.publications set status = 'published', external_id = p_external_id, published_at = now(), updated_at = now()
     where id = p_publication_id;
    perform mdame.log_event((v_lock.unit).run_id, v_pub.unit_id, 'publish', 'published',
      jsonb_build_object('platform', v_pub.platform, 'external_id', p_external_id));
  end if;
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  if exists (select 1 from mdame.dimension_accounts a
              where a.dimension_id = (v_lock.unit).dimension_id and a.active
                and not exists (select 1 from mdame.publications p where p.unit_id = v_pub.unit_id and p.account_id = a.id and p.status = 'published')) then
    return v_lock.unit;
  end if;
  perform mdame.store_step_result(p_step_token, (select jsonb_agg(jsonb_build_object('platform', platform, 'external_id', external_id))
                                                   from mdame.publications where unit_id = v_pub.unit_id));
  v_unit := mdame.set_unit_stage(v_pub.unit_id, 'published');
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
