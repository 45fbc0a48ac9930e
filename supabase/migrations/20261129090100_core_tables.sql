-- The engine's state. Every table has RLS on and no policy for anon/authenticated: only the
-- service role and the RPCs (security definer where called by the service role) touch it.

create table mdame.settings (
  key text primary key,
  value text not null,
  updated_at timestamptz not null default now()
);
comment on table mdame.settings is 'Engine settings; key env records dev|prod for the environment guard.';

create table mdame.stage_policies (
  stage text primary key,
  max_attempts integer not null check (max_attempts between 1 and 20),
  visibility_timeout_s integer not null check (visibility_timeout_s between 5 and 3600),
  retry_backoff_s integer not null check (retry_backoff_s between 1 and 3600),
  deadline_s integer not null check (deadline_s between 10 and 86400)
);
comment on table mdame.stage_policies is 'Per-stage retry bound, queue visibility timeout, retry backoff and deadline.';

create table mdame.dimensions (
  id text primary key check (id ~ '^[a-z0-9][a-z0-9_-]{1,40}$'),
  display_name text not null,
  language text not null check (language in ('en', 'id')),
  tts_voice text not null,
  tts_rate text not null default '+0%' check (tts_rate ~ '^[+-][0-9]{1,2}%$'),
  trend_geo text not null check (trend_geo ~ '^[A-Z]{2}$'),
  style jsonb not null,
  safety_profile jsonb not null default '{"blocked_terms": []}'::jsonb,
  daily_limit integer not null default 1 check (daily_limit between 0 and 50),
  active boolean not null default true,
  created_at timestamptz not null default now()
);

create table mdame.dimension_accounts (
  id uuid primary key default gen_random_uuid(),
  dimension_id text not null references mdame.dimensions (id),
  platform text not null check (platform in ('youtube')),
  channel_handle text not null,
  credentials_enc text,
  daily_quota_units integer not null default 10000 check (daily_quota_units > 0),
  active boolean not null default true,
  created_at timestamptz not null default now(),
  unique (dimension_id, platform, channel_handle)
);
comment on column mdame.dimension_accounts.credentials_enc is 'AES-256-GCM sealed credentials; the key lives only in the processes that publish.';

create table mdame.pipeline_runs (
  id uuid primary key default gen_random_uuid(),
  idempotency_key text not null unique,
  env text not null check (env in ('dev', 'prod')),
  run_date date not null,
  trigger_kind text not null check (trigger_kind in ('cron', 'manual')),
  dimension_filter text references mdame.dimensions (id),
  status text not null default 'running' check (status in ('running', 'completed', 'failed', 'rolled_back')),
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);

create table mdame.run_dimensions (
  run_id uuid not null references mdame.pipeline_runs (id),
  dimension_id text not null references mdame.dimensions (id),
  status text not null default 'ingesting' check (status in ('ingesting', 'ingested', 'failed')),
  topics_seen integer not null default 0,
  units_created integer not null default 0,
  updated_at timestamptz not null default now(),
  primary key (run_id, dimension_id)
);

create table mdame.system_locks (
  name text primary key,
  holder text not null,
  acquired_at timestamptz not null default now(),
  lease_expires_at timestamptz not null
);

create table mdame.work_units (
  id uuid primary key default gen_random_uuid(),
  run_id uuid not null references mdame.pipeline_runs (id),
  dimension_id text not null references mdame.dimensions (id),
  unit_key text not null unique,
  topic_fingerprint text not null,
  topic jsonb not null,
  stage text not null default 'script'
    check (stage in ('script', 'safety', 'plan', 'media', 'render', 'publish', 'published', 'rejected', 'failed')),
  stage_attempts integer not null default 0,
  stage_deadline timestamptz,
  lease_holder text,
  lease_expires_at timestamptz,
  script jsonb,
  voice jsonb,
  video jsonb,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (dimension_id, topic_fingerprint)
);
create index work_units_run_idx on mdame.work_units (run_id);
create index work_units_open_idx on mdame.work_units (stage_deadline)
  where stage not in ('published', 'rejected', 'failed');

create table mdame.scenes (
  id uuid primary key default gen_random_uuid(),
  unit_id uuid not null references mdame.work_units (id),
  scene_index integer not null check (scene_index >= 0),
  prompt text not null,
  narration text not null,
  first_word integer not null check (first_word >= 0),
  duration_s numeric(6, 2) not null check (duration_s > 0),
  scene_hash text not null check (scene_hash ~ '^[0-9a-f]{64}$'),
  status text not null default 'queued' check (status in ('queued', 'ready', 'failed')),
  asset_key text,
  cache_hit boolean,
  msg_id bigint,
  job jsonb,
  updated_at timestamptz not null default now(),
  unique (unit_id, scene_index)
);

create table mdame.scene_cache (
  scene_hash text primary key check (scene_hash ~ '^[0-9a-f]{64}$'),
  asset_key text not null,
  backend text not null,
  created_at timestamptz not null default now()
);

create table mdame.publications (
  id uuid primary key default gen_random_uuid(),
  unit_id uuid not null references mdame.work_units (id),
  account_id uuid not null references mdame.dimension_accounts (id),
  platform text not null check (platform in ('youtube')),
  status text not null default 'pending' check (status in ('pending', 'uploading', 'published', 'failed')),
  upload_session_uri text,
  external_id text,
  video_key text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  published_at timestamptz,
  unique (unit_id, account_id)
);
create unique index publications_external_idx on mdame.publications (platform, external_id) where external_id is not null;

create table mdame.quota_reservations (
  publication_id uuid primary key references mdame.publications (id),
  account_id uuid not null references mdame.dimension_accounts (id),
  usage_date date not null,
  units integer not null check (units > 0),
  created_at timestamptz not null default now()
);
create index quota_reservations_day_idx on mdame.quota_reservations (account_id, usage_date);

create table mdame.safety_audit_logs (
  id bigint generated always as identity primary key,
  run_id uuid references mdame.pipeline_runs (id),
  unit_id uuid references mdame.work_units (id),
  dimension_id text not null references mdame.dimensions (id),
  subject text not null check (subject in ('topic', 'script')),
  subject_text text not null,
  verdict text not null check (verdict in ('allowed', 'rejected')),
  reasons jsonb not null default '[]'::jsonb,
  classifier text not null,
  created_at timestamptz not null default now()
);

create table mdame.step_results (
  step_token text primary key check (step_token like 'step:%'),
  result jsonb not null,
  created_at timestamptz not null default now()
);

create table mdame.webhook_receipts (
  webhook_id text primary key,
  kind text not null,
  received_at timestamptz not null default now()
);

create table mdame.dead_letters (
  id bigint generated always as identity primary key,
  queue_name text not null,
  msg_id bigint not null,
  read_ct integer not null,
  payload jsonb not null,
  last_error text not null,
  unit_id uuid references mdame.work_units (id),
  created_at timestamptz not null default now(),
  retried_at timestamptz,
  retried_msg_id bigint,
  unique (queue_name, msg_id)
);

create table mdame.llm_cache (
  cache_key text primary key check (cache_key ~ '^[0-9a-f]{64}$'),
  model text not null,
  response jsonb not null,
  created_at timestamptz not null default now()
);

create table mdame.events (
  id bigint generated always as identity primary key,
  run_id uuid references mdame.pipeline_runs (id),
  unit_id uuid references mdame.work_units (id),
  stage text,
  kind text not null,
  detail jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index events_run_idx on mdame.events (run_id, id);

do $$
declare
  t text;
begin
  for t in select tablename from pg_tables where schemaname = 'mdame' loop
    execute format('alter table mdame.%I enable row level security', t);
    execute format('revoke all on mdame.%I from anon, authenticated', t);
    execute format('grant select, insert, update, delete on mdame.%I to service_role', t);
  end loop;
end
$$;
