-- How long a failed alert delivery waits before its next attempt, in seconds: the wait the chat
-- service named (a 429's retry_after, 1 s to a day) when it named one, else 15 s doubling per
-- attempt up to 1 hour. Both deliveries use it: the tick's notifier (record_alert_attempt) and the
-- watchdog's own (deliver_database_alerts).

create or replace function mdame.alert_retry_wait_s(p_attempts integer, p_retry_after_s integer)
returns double precision
language sql
immutable
set search_path = ''
as $$
  select case
    when p_retry_after_s is not null then greatest(1, least(p_retry_after_s, 86400))::double precision
    else least(3600, 15 * power(2, least(greatest(coalesce(p_attempts, 1), 1), 12) - 1)) end;
$$;

comment on function mdame.alert_retry_wait_s(integer, integer) is 'internal: the wait before an alert''s next delivery attempt';
