-- Dimensions and publishing accounts managed through the operator API (`mdame dimension ...`,
-- `mdame account ...`) instead of hand-written SQL. The configuration is validated by its Zod
-- contract (shared/contracts/dimension.ts) before it gets here; the table's check constraints stay
-- the last word. Credentials arrive already sealed: the key never enters the database.

alter table mdame.dimensions
  add column updated_at timestamptz not null default now();

alter table mdame.dimension_accounts
  -- The platform's own id of the channel (YouTube `UC...`), when the connect flow discovered it.
  add column channel_id text,
  -- When the current credentials were stored (null: never connected).
  add column connected_at timestamptz,
  add column updated_at timestamptz not null default now();

-- Creates a dimension from a validated configuration. An id already taken is a conflict, never an
-- overwrite: changing a dimension is update_dimension's job.
create or replace function mdame.create_dimension(p_config jsonb)
returns mdame.dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_row mdame.dimensions;
begin
  if p_config is null or jsonb_typeof(p_config) <> 'object' or coalesce(p_config->>'id', '') = '' then
    raise exception 'a dimension configuration needs an id' using errcode = '22023';
  end if;
  -- The insert is the lock: a concurrent create of the same id waits on the unique index and then
  -- finds the row taken.
  insert into mdame.dimensions (id, display_name, language, tts_voice, tts_rate, trend_geo, style, safety_profile,
                                daily_limit, narration_min_words, narration_max_words)
  values (p_config->>'id', p_config->>'display_name', p_config->>'language', p_config->>'tts_voice',
          coalesce(p_config->>'tts_rate', '+0%'), p_config->>'trend_geo', p_config->'style',
          coalesce(p_config->'safety_profile', '{"blocked_terms": []}'::jsonb),
          coalesce((p_config->>'daily_limit')::integer, 1),
          coalesce((p_config->>'narration_min_words')::integer, 95),
          coalesce((p_config->>'narration_max_words')::integer, 150))
  on conflict (id) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'dimension % already exists (change it with `mdame dimension set`)', p_config->>'id' using errcode = 'MDS01';
  end if;
  return v_row;
end;
$$;

-- Replaces a dimension's configuration with p_config (the whole merged configuration). The id and
-- whether it is active are not part of it. A call that changes nothing leaves the row as it was.
create or replace function mdame.update_dimension(p_id text, p_config jsonb)
returns mdame.dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_old mdame.dimensions;
  v_row mdame.dimensions;
begin
  select * into v_old from mdame.dimensions where id = p_id for update;
  if v_old.id is null then
    raise exception 'no dimension %', p_id using errcode = 'MDN01';
  end if;
  if p_config is null or jsonb_typeof(p_config) <> 'object' then
    raise exception 'a dimension configuration is a JSON object' using errcode = '22023';
  end if;
  if p_config ? 'id' and p_config->>'id' <> p_id then
    raise exception 'a dimension''s id cannot change (% -> %)', p_id, p_config->>'id' using errcode = 'MDS01';
  end if;
  update mdame.dimensions d set
    display_name = coalesce(p_config->>'display_name', d.display_name),
    language = coalesce(p_config->>'language', d.language),
    tts_voice = coalesce(p_config->>'tts_voice', d.tts_voice),
    tts_rate = coalesce(p_config->>'tts_rate', d.tts_rate),
    trend_geo = coalesce(p_config->>'trend_geo', d.trend_geo),
    style = coalesce(p_config->'style', d.style),
    safety_profile = coalesce(p_config->'safety_profile', d.safety_profile),
    daily_limit = coalesce((p_config->>'daily_limit')::integer, d.daily_limit),
    narration_min_words = coalesce((p_config->>'narration_min_words')::integer, d.narration_min_words),
    narration_max_words = coalesce((p_config->>'narration_max_words')::integer, d.narration_max_words)
   where d.id = p_id
  returning * into v_row;
  -- updated_at moves only when something did, so a repeated `set` reads as no change.
  if (to_jsonb(v_row) - 'updated_at') is distinct from (to_jsonb(v_old) - 'updated_at') then
    update mdame.dimensions set updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;

-- Pauses (p_active = false) or resumes a dimension. Runs started afterwards leave a paused
-- dimension out (start_run only picks active ones); work already under way finishes.
create or replace function mdame.set_dimension_active(p_id text, p_active boolean)
returns mdame.dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_row mdame.dimensions;
begin
  select * into v_row from mdame.dimensions where id = p_id for update;
  if v_row.id is null then
    raise exception 'no dimension %', p_id using errcode = 'MDN01';
  end if;
  if v_row.active is distinct from p_active then
    update mdame.dimensions set active = p_active, updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;

-- The account of a channel on a dimension, created on first connect; unique per dimension,
-- platform and channel handle. A reconnect updates the channel id and keeps the account's id
-- (its publications stay its own) and whether it is paused. The caller seals the credentials for
-- the returned id and stores them with store_account_credentials in the same transaction.
create or replace function mdame.connect_account(p_dimension_id text, p_platform text, p_channel_handle text, p_channel_id text default null)
returns mdame.dimension_accounts
language plpgsql
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
  insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, channel_id)
  values (p_dimension_id, p_platform, p_channel_handle, p_channel_id)
  on conflict (dimension_id, platform, channel_handle) do update
    set channel_id = coalesce(excluded.channel_id, mdame.dimension_accounts.channel_id),
        updated_at = now()
  returning * into v_row;
  return v_row;
end;
$$;

-- Stores an account's sealed credentials (`v1.<iv>.<ciphertext>`, sealed by the caller for this
-- account's id), replacing the old ones.
create or replace function mdame.store_account_credentials(p_account_id uuid, p_credentials_enc text)
returns mdame.dimension_accounts
language plpgsql
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if p_credentials_enc is null or p_credentials_enc !~ '^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$' then
    raise exception 'credentials must be sealed (v1.<iv>.<ciphertext>)' using errcode = '22023';
  end if;
  update mdame.dimension_accounts
     set credentials_enc = p_credentials_enc, connected_at = now(), updated_at = now()
   where id = p_account_id
  returning * into v_row;
  return v_row;
end;
$$;

-- Pauses (p_active = false) or resumes an account: publishing skips a paused account.
create or replace function mdame.set_account_active(p_account_id uuid, p_active boolean)
returns mdame.dimension_accounts
language plpgsql
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_row.active is distinct from p_active then
    update mdame.dimension_accounts set active = p_active, updated_at = now() where id = p_account_id returning * into v_row;
  end if;
  return v_row;
end;
$$;

-- Removes an account. One that has published (or reserved quota) keeps its row as the record of
-- those publications, with its credentials erased and publishing stopped; any other is deleted.
create or replace function mdame.remove_account(p_account_id uuid)
returns jsonb
language plpgsql
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
  if v_publications > 0 or exists (select 1 from mdame.quota_reservations where account_id = p_account_id) then
    update mdame.dimension_accounts
       set credentials_enc = null, active = false, connected_at = null, updated_at = now()
     where id = p_account_id;
    return jsonb_build_object('account_id', p_account_id, 'deleted', false, 'publications', v_publications);
  end if;
  delete from mdame.dimension_accounts where id = p_account_id;
  return jsonb_build_object('account_id', p_account_id, 'deleted', true, 'publications', 0);
end;
$$;

select mdame.restrict_function_privileges();
