-- Raises an operator alert in the caller's transaction (an outbox row the notifier delivers). An
-- alert with the same dedupe key raised within the dedupe window (settings key
-- alert_dedupe_window, default 6 hours, on the engine's clock) counts one more occurrence instead
-- of a second message; the id returned is that alert's. A new alert wakes the runner, which
-- delivers it.

create or replace function mdame.raise_alert(p_kind text, p_dimension_id text, p_dedupe_key text, p_summary text,
                                             p_details jsonb default '{}'::jsonb, p_photo_key text default null::text)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
  v_window interval;
  v_id uuid;
begin
  select coalesce((select value::interval from mdame.settings where key = 'alert_dedupe_window'), interval '6 hours')
    into v_window;
  select a.id into v_id
    from mdame.alerts a
   where a.dedupe_key = p_dedupe_key and a.last_raised_at > v_now - v_window
   order by a.last_raised_at desc
   limit 1
   for update;
  if v_id is not null then
    update mdame.alerts set occurrences = occurrences + 1, last_raised_at = v_now where id = v_id;
    return v_id;
  end if;
  insert into mdame.alerts (kind, dimension_id, dedupe_key, summary, details, photo_key,
                            next_attempt_at, created_at, last_raised_at)
  values (p_kind, p_dimension_id, p_dedupe_key, p_summary, coalesce(p_details, '{}'::jsonb), p_photo_key,
          v_now, v_now, v_now)
  returning id into v_id;
  perform mdame.wake_stage_runner('alert');
  return v_id;
end;
$$;
