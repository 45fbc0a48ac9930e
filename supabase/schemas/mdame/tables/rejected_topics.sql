-- Topics the ingest stage dropped before they became work units, with why and, where scored, the
-- score and its components: an operator can see what a threshold or a subject keeps out. Safety
-- rejections stay in safety_audit_logs.

create table mdame.rejected_topics (
  id bigint generated always as identity,
  run_id uuid not null,
  dimension_id text not null,
  title text not null,
  source text,
  url text,
  reason text not null,
  score double precision,
  components jsonb not null default '{}'::jsonb,
  detail jsonb not null default '{}'::jsonb,
  created_at timestamp with time zone not null default now(),
  constraint rejected_topics_pkey primary key (id),
  constraint rejected_topics_reason_check check ((reason = any (array['below_min_score'::text, 'off_subject'::text, 'excluded_term'::text, 'near_duplicate'::text]))),
  constraint rejected_topics_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint rejected_topics_run_id_fkey foreign key (run_id) references mdame.pipeline_runs(id)
);

create index rejected_topics_run_idx on mdame.rejected_topics (run_id, dimension_id);

alter table mdame.rejected_topics enable row level security;
