create table mdame.events (
  id bigint generated always as identity,
  run_id uuid,
  unit_id uuid,
  stage text,
  kind text not null,
  detail jsonb not null default '{}'::jsonb,
  created_at timestamp with time zone not null default now(),
  constraint events_pkey primary key (id),
  constraint events_run_id_fkey foreign key (run_id) references mdame.pipeline_runs(id),
  constraint events_unit_id_fkey foreign key (unit_id) references mdame.work_units(id)
);

create index events_kind_created_idx on mdame.events (kind, created_at);

create index events_run_idx on mdame.events (run_id, id);

create index events_created_idx on mdame.events (created_at);

alter table mdame.events enable row level security;
