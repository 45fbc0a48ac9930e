-- Records an operator alert in the caller's transaction, deduplicated as mdame.raise_alert says,
-- delivered by the tick's notifier (edge) or by the watchdog itself (database). created says
-- whether a new alert row was written. raise_alert (edge delivery, which wakes the runner) and the
-- watchdog (database delivery, which must not wait on the runner) both go through it.

create or replace function mdame.record_alert(p_kind text, p_dimension_id text, p_dedupe_key text, p_summary text,
                                              p_details jsonb, p_photo_key text, p_delivered_by text)
returns table(id uuid, created boolean)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
  v_window interval;
  v_id uuid;
begin
  v_window := mdame.setting_interval('alert_dedupe_window', interval '6 hours');
  select a.id into v_id
    from mdame.alerts a
   where a.dedupe_key = p_dedupe_key and a.last_raised_at > v_now - v_window
   order by a.last_raised_at desc
   limit 1
   for update;
  if v_id is not null then
    update mdame.alerts set occurrences = occurrences + 1, last_raised_at = v_now where alerts.id = v_id;
    return query select v_id, false;
    return;
  end if;
  insert into mdame.alerts (kind, dimension_id, dedupe_key, summary, details, photo_key, delivered_by,
                            next_attempt_at, created_at, last_raised_at)
  values (p_kind, p_dimension_id, p_dedupe_key, p_summary, coalesce(p_details, '{}'::jsonb), p_photo_key,
          coalesce(p_delivered_by, 'edge'), v_now, v_now, v_now)
  returning alerts.id into v_id;
  return query select v_id, true;
end;
$$;

comment on function mdame.record_alert(text, text, text, text, jsonb, text, text) is 'internal: writes or counts an alert (raise_alert and the watchdog)';
