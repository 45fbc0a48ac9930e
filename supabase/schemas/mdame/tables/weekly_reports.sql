-- The weekly report of each active dimension: one row per dimension and week (Monday to Sunday in
-- the dimension's publishing time zone), queued on Sunday evening by pg_cron, built by the
-- pipeline's tick (the report's figures, its Markdown and its chart), and announced through the
-- alerts outbox in the transaction that marks it ready. The unique key is what keeps a week to one
-- report however often it is queued.
create table mdame.weekly_reports (
  id uuid not null default gen_random_uuid(),
  dimension_id text not null,
  week_start date not null,
  status text not null default 'pending'::text,
  attempts integer not null default 0,
  lease_holder text,
  next_attempt_at timestamp with time zone not null,
  last_error text,
  report jsonb,
  markdown text,
  chart_key text,
  alert_id uuid,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  ready_at timestamp with time zone,
  constraint weekly_reports_pkey primary key (id),
  constraint weekly_reports_dimension_id_week_start_key unique (dimension_id, week_start),
  constraint weekly_reports_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id) on delete cascade,
  constraint weekly_reports_alert_id_fkey foreign key (alert_id) references mdame.alerts(id) on delete set null,
  constraint weekly_reports_status_check check ((status = any (array['pending'::text, 'ready'::text, 'failed'::text]))),
  constraint weekly_reports_week_start_check check ((extract(isodow from week_start) = (1)::numeric)),
  constraint weekly_reports_attempts_check check ((attempts >= 0)),
  constraint weekly_reports_ready_check check (((status <> 'ready'::text) or ((report is not null) and (markdown is not null) and (chart_key is not null) and (ready_at is not null))))
);

create index weekly_reports_pending_idx on mdame.weekly_reports (next_attempt_at) where (status = 'pending'::text);

comment on table mdame.weekly_reports is 'One weekly report per dimension and week (Monday..Sunday in the dimension''s publishing time zone): pending until the tick builds it, then ready with its JSON, Markdown and chart key (docs/reference/weekly-report.md).';

alter table mdame.weekly_reports enable row level security;
