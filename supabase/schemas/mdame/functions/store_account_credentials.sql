-- Stores an account's sealed credentials (`v2.<kid>.<iv>.<ciphertext>`, sealed by the caller for
-- this account's id; `v1.<iv>.<ciphertext>` from functions not yet on the key ring), replacing the
-- old ones. New credentials are a new grant: an account that needed reconnecting is healthy again
-- (its deferred publications are then drained).

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
  if p_credentials_enc is null
     or p_credentials_enc !~ '^(v1|v2\.[0-9a-f]{8})\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$' then
    raise exception 'credentials must be sealed (v2.<kid>.<iv>.<ciphertext> or v1.<iv>.<ciphertext>)' using errcode = '22023';
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
