-- clock_timestamp: runs started in one transaction still order by when each started.

create table mdame.pipeline_runs (
  id uuid not null default gen_random_uuid(),
  idempotency_key text not null,
  env text not null,
  run_date date not null,
  trigger_kind text not null,
  dimension_filter text,
  status text not null default 'running'::text,
  error text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  finished_at timestamp with time zone,
  constraint pipeline_runs_pkey primary key (id),
  constraint pipeline_runs_idempotency_key_key unique (idempotency_key),
  constraint pipeline_runs_env_check check ((env = any (array['dev'::text, 'prod'::text]))),
  constraint pipeline_runs_status_check check ((status = any (array['running'::text, 'completed'::text, 'failed'::text, 'rolled_back'::text]))),
  constraint pipeline_runs_trigger_kind_check check ((trigger_kind = any (array['cron'::text, 'manual'::text]))),
  constraint pipeline_runs_dimension_filter_fkey foreign key (dimension_filter) references mdame.dimensions(id)
);

create index pipeline_runs_run_date_idx on mdame.pipeline_runs (run_date, created_at);

alter table mdame.pipeline_runs enable row level security;
