-- The chat accepted every message of a claimed alert: it is sent, with the chat and the message
-- ids. Only the holder of the current claim may record it; any other call (a late one, a repeat)
-- returns the row unchanged.

create or replace function mdame.record_alert_sent(p_id uuid, p_claim_token uuid, p_chat_id text, p_message_ids bigint[])
returns mdame.alerts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.alerts;
begin
  select * into v_row from mdame.alerts where id = p_id for update;
  if not found then
    raise exception 'no alert %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.claim_token is distinct from p_claim_token then
    return v_row;
  end if;
  update mdame.alerts
     set status = 'sent', sent_at = mdame.engine_now(), chat_id = left(p_chat_id, 64),
         message_ids = coalesce(p_message_ids, '{}'), last_error = null, claim_token = null
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;
