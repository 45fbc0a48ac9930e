-- Credentials sealed with a key ring (docs/rotation.md): values now name their key
-- (`v2.<kid>.<iv>.<ciphertext>`), so store_account_credentials accepts that format beside v1, and
-- reseal_account_credentials re-seals one account's credentials with the current key as a
-- compare-and-swap (`mdame credentials rotate`).

create or replace function mdame.store_account_credentials(p_account_id uuid, p_credentials_enc text)
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if p_credentials_enc is null
     or p_credentials_enc !~ '^(v1|v2\.[0-9a-f]{8})\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$' then
    raise exception 'credentials must be sealed (v2.<kid>.<iv>.<ciphertext> or v1.<iv>.<ciphertext>)' using errcode = '22023';
  end if;
  update mdame.dimension_accounts
     set credentials_enc = p_credentials_enc, connected_at = now(), updated_at = now()
   where id = p_account_id
  returning * into v_row;
  return v_row;
end;
$$;


create or replace function mdame.reseal_account_credentials(p_account_id uuid, p_expected_enc text, p_resealed_enc text)
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if p_expected_enc is null then
    raise exception 'the credentials read before re-sealing are required' using errcode = '22023';
  end if;
  if p_resealed_enc is null or p_resealed_enc !~ '^v2\.[0-9a-f]{8}\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$' then
    raise exception 're-sealed credentials must be in the current format (v2.<kid>.<iv>.<ciphertext>)' using errcode = '22023';
  end if;
  if v_row.credentials_enc is distinct from p_expected_enc then
    return v_row;
  end if;
  update mdame.dimension_accounts
     set credentials_enc = p_resealed_enc, updated_at = now()
   where id = p_account_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.reseal_account_credentials(uuid,text,text) from public, anon, authenticated;
grant execute on function mdame.reseal_account_credentials(uuid,text,text) to mdame_engine;
grant execute on function mdame.reseal_account_credentials(uuid,text,text) to service_role;

select mdame.restrict_function_privileges();
