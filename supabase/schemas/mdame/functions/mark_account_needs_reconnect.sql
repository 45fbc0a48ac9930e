-- Google refused the account's grant (the token endpoint's invalid_grant, or a Data API 401 right
-- after a fresh token): the account needs the operator to connect it again. Records the state
-- with its reason and since when, and an event for notifiers carrying the command that fixes it.
-- An account already in that state is returned unchanged (its first reason and time kept).

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
    'fix', mdame.reconnect_command(v_row)));
  return v_row;
end;
$$;
