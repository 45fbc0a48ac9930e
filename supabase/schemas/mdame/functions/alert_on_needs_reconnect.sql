-- Producer: an account entering needs_reconnect (mark_account_needs_reconnect, or any other
-- writer of health_state) raises an alert in that transaction, with the command that fixes it.

create or replace function mdame.alert_on_needs_reconnect()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform mdame.raise_alert(
    'needs_reconnect', new.dimension_id, 'needs_reconnect:' || new.id,
    format('The %s account %s of %s needs to be connected again: %s', new.platform, new.channel_handle, new.dimension_id,
           coalesce(new.health_reason, 'grant refused')),
    jsonb_build_object('account_id', new.id, 'platform', new.platform, 'channel_handle', new.channel_handle,
                       'reason', new.health_reason,
                       'fix', mdame.reconnect_command(new)));
  return new;
end;
$$;

comment on function mdame.alert_on_needs_reconnect() is 'internal: trigger raising needs_reconnect when an account enters that state';

create trigger dimension_accounts_alert_reconnect after insert or update of health_state on mdame.dimension_accounts
  for each row when (new.health_state = 'needs_reconnect') execute function mdame.alert_on_needs_reconnect();
