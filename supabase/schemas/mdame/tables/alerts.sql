-- The operator's alerts, an outbox: a producer raises one in its own transaction (nothing is sent
-- for a rolled-back failure), the notifier delivers it later and records the outcome, so an outage
-- of the chat service loses nothing. A raise with the dedupe key of an alert raised within the
-- dedupe window counts as one more occurrence of it instead of a new message.
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
  claim_token uuid,
  chat_id text,
  message_ids bigint[] not null default '{}'::bigint[],
  delivered_by text not null default 'edge'::text,
  net_request_id bigint,
  net_posted_at timestamp with time zone,
  constraint alerts_pkey primary key (id),
  constraint alerts_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id) on delete set null,
  constraint alerts_kind_check check ((kind = any (array['run_failed'::text, 'dead_letter'::text, 'needs_reconnect'::text, 'quota_deferral_stale'::text, 'quality_gate_failed'::text, 'component_restarting'::text, 'weekly_report'::text, 'engine_stopped'::text, 'engine_recovered'::text, 'workers_absent'::text, 'upload_locked'::text, 'quota_bucket_high'::text, 'spend_budget'::text, 'review_waiting'::text]))),
  constraint alerts_delivered_by_check check ((delivered_by = any (array['edge'::text, 'database'::text]))),
  constraint alerts_status_check check ((status = any (array['pending'::text, 'sent'::text, 'failed'::text]))),
  constraint alerts_summary_check check (((length(summary) >= 1) and (length(summary) <= 20000))),
  constraint alerts_dedupe_key_check check (((length(dedupe_key) >= 1) and (length(dedupe_key) <= 300))),
  constraint alerts_details_check check ((jsonb_typeof(details) = 'object'::text)),
  constraint alerts_occurrences_check check ((occurrences >= 1)),
  constraint alerts_attempts_check check ((attempts >= 0))
);

create index alerts_dedupe_idx on mdame.alerts (dedupe_key, last_raised_at);

create index alerts_pending_idx on mdame.alerts (next_attempt_at) where (status = 'pending'::text);

comment on column mdame.alerts.claim_token is 'Set by claim_alerts: only the claimer may record the attempt (a late call after another claim changes nothing).';

comment on column mdame.alerts.delivered_by is 'edge: the tick''s notifier delivers it (claim_alerts); database: the watchdog sends it itself through pg_net (deliver_watchdog_alerts), so an alert about the Edge Function never waits on it.';

comment on column mdame.alerts.net_request_id is 'A database-delivered alert''s pg_net request in flight (its answer is read at the watchdog''s next run); null when none is.';

comment on column mdame.alerts.message_ids is 'The chat''s message ids of a sent alert, in order (a long alert is split in several messages).';

comment on table mdame.alerts is 'The operator''s alerts (an outbox): raised in the producer''s transaction, delivered by the notifier, deduplicated by dedupe_key within the window of settings key alert_dedupe_window (default 6 hours).';

alter table mdame.alerts enable row level security;
