-- A delivery attempt of a claimed alert failed. A permanent refusal (the chat service said the
-- request itself is wrong) marks it failed with the error. Anything else keeps it pending forever,
-- so an outage loses nothing: it is due again after p_retry_after_s when the service named a wait
-- (a 429's retry_after), else after a backoff that doubles per attempt from 15 s up to 1 hour.
-- Only the holder of the current claim may record; any other call returns the row unchanged.

create or replace function mdame.record_alert_attempt(p_id uuid, p_claim_token uuid, p_error text, p_permanent boolean,
                                                      p_retry_after_s integer default null::integer)
returns mdame.alerts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.alerts;
  v_wait_s double precision;
begin
  select * into v_row from mdame.alerts where id = p_id for update;
  if not found then
    raise exception 'no alert %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.claim_token is distinct from p_claim_token then
    return v_row;
  end if;
  if p_permanent then
    update mdame.alerts set status = 'failed', last_error = left(coalesce(p_error, 'refused'), 2000), claim_token = null
     where id = p_id returning * into v_row;
    return v_row;
  end if;
  v_wait_s := mdame.alert_retry_wait_s(v_row.attempts, p_retry_after_s);
  update mdame.alerts
     set last_error = left(coalesce(p_error, 'failed'), 2000), claim_token = null,
         next_attempt_at = mdame.engine_now() + make_interval(secs => v_wait_s)
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;
