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
  v_row record;
begin
  select * into v_row from mdame.record_alert(p_kind, p_dimension_id, p_dedupe_key, p_summary, p_details, p_photo_key, 'edge');
  if v_row.created then
    perform mdame.wake_stage_runner('alert');
  end if;
  return v_row.id;
end;
$$;
