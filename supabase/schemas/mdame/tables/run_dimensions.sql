create table mdame.run_dimensions (
  run_id uuid not null,
  dimension_id text not null,
  status text not null default 'ingesting'::text,
  topics_seen integer not null default 0,
  units_created integer not null default 0,
  updated_at timestamp with time zone not null default now(),
  config_hash text,
  config jsonb,
  constraint run_dimensions_pkey primary key (run_id, dimension_id),
  constraint run_dimensions_config_hash_check check ((config_hash ~ '^[0-9a-f]{64}$'::text)),
  constraint run_dimensions_status_check check ((status = any (array['ingesting'::text, 'ingested'::text, 'failed'::text]))),
  constraint run_dimensions_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint run_dimensions_run_id_fkey foreign key (run_id) references mdame.pipeline_runs(id)
);

comment on column mdame.run_dimensions.config is 'The dimension''s configuration when the run started it; the run''s stages use it.';

create index run_dimensions_config_idx on mdame.run_dimensions (dimension_id, config_hash);

alter table mdame.run_dimensions enable row level security;
