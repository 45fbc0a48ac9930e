-- Stores an account's sealed credentials (`v2.<kid>.<iv>.<ciphertext>`, sealed by the caller for
-- this account's id; `v1.<iv>.<ciphertext>` from functions not yet on the key ring), replacing the
-- old ones.

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

revoke all on function mdame.store_account_credentials(uuid,text) from public, anon, authenticated;
grant execute on function mdame.store_account_credentials(uuid,text) to mdame_engine;
grant execute on function mdame.store_account_credentials(uuid,text) to service_role;
