-- A dimension says what it is about (subject) and where its topics come from (sources, each with a
-- weight); topics scoring under its min_score are dropped. The shapes are checked in full by the
-- Zod contract (shared/contracts/sources.ts); the table keeps the coarse checks so a hand-written
-- row cannot break the ingest stage. Defaults keep every existing dimension as it was: no subject
-- (every topic matches), the Google Trends feed of its trend_geo, no threshold.

alter table mdame.dimensions
  add column subject jsonb not null default '{"keywords": [], "categories": [], "excluded_terms": []}'::jsonb,
  add column sources jsonb not null default '[{"kind": "google_trends", "weight": 1}]'::jsonb,
  add column min_score double precision not null default 0,
  add constraint dimensions_subject_is_object check (jsonb_typeof(subject) = 'object'),
  add constraint dimensions_sources_listed check (jsonb_typeof(sources) = 'array' and jsonb_array_length(sources) between 1 and 10),
  add constraint dimensions_min_score_range check (min_score between 0 and 1);

-- Topics the ingest stage dropped before they became work units, with why and, where scored, the
-- score and its components: an operator can see what a threshold or a subject keeps out. Safety
-- rejections stay in safety_audit_logs.
create table mdame.rejected_topics (
  id bigint generated always as identity primary key,
  run_id uuid not null references mdame.pipeline_runs (id),
  dimension_id text not null references mdame.dimensions (id),
  title text not null,
  source text,
  url text,
  reason text not null check (reason in ('below_min_score', 'off_subject', 'excluded_term', 'near_duplicate')),
  score double precision,
  components jsonb not null default '{}'::jsonb,
  detail jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index rejected_topics_run_idx on mdame.rejected_topics (run_id, dimension_id);
alter table mdame.rejected_topics enable row level security;
grant select, insert, update, delete on mdame.rejected_topics to service_role;

select mdame.restrict_function_privileges();
