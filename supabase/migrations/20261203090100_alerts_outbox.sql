-- The operator's alerts: an outbox raised in the producer's transaction, delivered by the notifier.

create table mdame.alerts (
  id uuid not null default gen_random_uuid(),
  kind text not null,
  dimension_id text,
  dedupe_key text not null,
  summary text not null,
  details jsonb not null default '{}'::jsonb,
  photo_key text,
  status text not null default 'pending'::text,
  occurrences integer not null default 1,
  attempts integer not null default 0,
  next_attempt_at timestamp with time zone not null,
  last_error text,
  created_at timestamp with time zone not null,
  last_raised_at timestamp with time zone not null,
  sent_at timestamp with time zone,
  constraint alerts_pkey primary key (id),
  constraint alerts_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id) on delete set null,
  constraint alerts_kind_check check ((kind = any (array['run_failed'::text, 'dead_letter'::text, 'needs_reconnect'::text, 'quota_deferral_stale'::text, 'quality_gate_failed'::text, 'component_restarting'::text, 'weekly_report'::text]))),
  constraint alerts_status_check check ((status = any (array['pending'::text, 'sent'::text, 'failed'::text]))),
  constraint alerts_summary_check check (((length(summary) >= 1) and (length(summary) <= 20000))),
  constraint alerts_dedupe_key_check check (((length(dedupe_key) >= 1) and (length(dedupe_key) <= 300))),
  constraint alerts_details_check check ((jsonb_typeof(details) = 'object'::text)),
  constraint alerts_occurrences_check check ((occurrences >= 1)),
  constraint alerts_attempts_check check ((attempts >= 0))
);

create index alerts_dedupe_idx on mdame.alerts (dedupe_key, last_raised_at);

create index alerts_pending_idx on mdame.alerts (next_attempt_at) where (status = 'pending'::text);

comment on table mdame.alerts is 'The operator''s alerts (an outbox): raised in the producer''s transaction, delivered by the notifier, deduplicated by dedupe_key within the window of settings key alert_dedupe_window (default 6 hours).';

alter table mdame.alerts enable row level security;

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

revoke all on function mdame.raise_alert(text,text,text,text,jsonb,text) from public, anon, authenticated;
grant execute on function mdame.raise_alert(text,text,text,text,jsonb,text) to mdame_engine;
grant execute on function mdame.raise_alert(text,text,text,text,jsonb,text) to service_role;

select mdame.restrict_function_privileges();
