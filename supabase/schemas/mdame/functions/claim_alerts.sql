-- The notifier claims the alerts due for delivery, oldest due first: each claimed alert is leased
-- (next_attempt_at moves p_lease_s ahead, so a notifier that dies mid-send leaves it due again
-- later), counts one more attempt and gets a fresh claim token that record_alert_sent and
-- record_alert_attempt require. skip locked: two notifiers never claim the same alert. Each row
-- carries the chat its dimension names (dimensions.alerts.telegram_chat_id), null for the default.
-- Alerts the watchdog delivers itself (delivered_by database) are never claimed here.

create or replace function mdame.claim_alerts(p_limit integer, p_lease_s integer default 120)
returns table(id uuid, claim_token uuid, kind text, dimension_id text, dedupe_key text, summary text, details jsonb,
              photo_key text, occurrences integer, attempts integer, created_at timestamp with time zone,
              last_raised_at timestamp with time zone, chat_id text)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
begin
  if p_limit is null or p_limit < 1 or p_limit > 100 then
    raise exception 'claim between 1 and 100 alerts, not %', p_limit using errcode = '22023';
  end if;
  if p_lease_s is null or p_lease_s < 1 or p_lease_s > 3600 then
    raise exception 'the lease is 1..3600 seconds, not %', p_lease_s using errcode = '22023';
  end if;
  return query
  with due as (
    select a.id from mdame.alerts a
     where a.status = 'pending' and a.delivered_by = 'edge' and a.next_attempt_at <= v_now
     order by a.next_attempt_at, a.created_at, a.id
     limit p_limit
     for update skip locked
  ), claimed as (
    update mdame.alerts a
       set claim_token = gen_random_uuid(), attempts = a.attempts + 1, next_attempt_at = v_now + make_interval(secs => p_lease_s)
      from due where a.id = due.id
    returning a.*
  )
  select c.id, c.claim_token, c.kind, c.dimension_id, c.dedupe_key, c.summary, c.details, c.photo_key, c.occurrences,
         c.attempts, c.created_at, c.last_raised_at, d.alerts->>'telegram_chat_id'
    from claimed c left join mdame.dimensions d on d.id = c.dimension_id
   order by c.created_at, c.id;
end;
$$;
