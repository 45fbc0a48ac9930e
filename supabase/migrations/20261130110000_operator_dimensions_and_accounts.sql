-- Dimensions and publishing accounts managed through the operator API (`mdame dimension ...`,
-- `mdame account ...`) instead of hand-written SQL. The configuration is validated by its Zod
-- contract (shared/contracts/dimension.ts) before it gets here; the table's check constraints stay
-- the last word. Credentials arrive already sealed: the key never enters the database.
-- create_dimension and update_dimension, over every configuration column whichever migration adds
-- it, are in 20261130110100_dimension_config_any_column.sql.

alter table mdame.dimensions
  add column updated_at timestamptz not null default now();

alter table mdame.dimension_accounts
  -- The platform's own id of the channel (YouTube `UC...`), when the connect flow discovered it.
  add column channel_id text,
  -- When the current credentials were stored (null: never connected).
  add column connected_at timestamptz,
  add column updated_at timestamptz not null default now();

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
