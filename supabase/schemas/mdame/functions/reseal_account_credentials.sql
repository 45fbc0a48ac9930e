-- Replaces an account's sealed credentials with the same credentials sealed anew (key rotation,
-- `mdame credentials rotate`), as a compare-and-swap: only while the stored value is still the one
-- the caller read and re-sealed. A connect that stored new credentials meanwhile is never
-- overwritten; the row comes back unchanged, and the caller sees its value was not written. A
-- repeated call finds its own value stored and returns the row as it is. `connected_at` stays: the
-- account was not reconnected. An account the publish stage marked needs_reconnect because the ring
-- lacked the key of its credentials (reason 'credentials key missing: ...') is healthy again: the
-- re-sealed value opens with the current key.

create or replace function mdame.reseal_account_credentials(p_account_id uuid, p_expected_enc text, p_resealed_enc text)
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
  v_key_was_missing boolean;
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
  v_key_was_missing := v_row.health_state = 'needs_reconnect' and coalesce(v_row.health_reason like 'credentials key missing:%', false);
  update mdame.dimension_accounts
     set credentials_enc = p_resealed_enc, updated_at = now(),
         health_state = case when v_key_was_missing then 'ok' else health_state end,
         health_since = case when v_key_was_missing then now() else health_since end,
         health_reason = case when v_key_was_missing then null else health_reason end
   where id = p_account_id
  returning * into v_row;
  if v_key_was_missing then
    perform mdame.log_event(null, null, null, 'account_reconnected',
      jsonb_build_object('account_id', v_row.id, 'dimension_id', v_row.dimension_id, 'by', 'credentials rotate'));
  end if;
  return v_row;
end;
$$;
