-- The render reports the bed it used in its video (render.completed -> complete_render_job stores
-- the whole video object); this column keeps it queryable for licence audits without parsing.

create table mdame.work_units (
  id uuid not null default gen_random_uuid(),
  run_id uuid not null,
  dimension_id text not null,
  unit_key text not null,
  topic_fingerprint text not null,
  topic jsonb not null,
  stage text not null default 'script'::text,
  stage_attempts integer not null default 0,
  stage_deadline timestamp with time zone,
  lease_holder text,
  lease_expires_at timestamp with time zone,
  script jsonb,
  voice jsonb,
  video jsonb,
  error text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  video_music jsonb generated always as ((video -> 'music'::text)) stored,
  quality jsonb,
  similarity jsonb,
  constraint work_units_pkey primary key (id),
  constraint work_units_dimension_id_topic_fingerprint_key unique (dimension_id, topic_fingerprint),
  constraint work_units_unit_key_key unique (unit_key),
  constraint work_units_quality_check check (((quality is null) or ((jsonb_typeof(quality) = 'object'::text) and (COALESCE(jsonb_typeof((quality -> 'passed'::text)), ''::text) = 'boolean'::text)))),
  constraint work_units_stage_check check ((stage = any (array['script'::text, 'safety'::text, 'plan'::text, 'media'::text, 'render'::text, 'awaiting_review'::text, 'publish'::text, 'deferred'::text, 'published'::text, 'rejected'::text, 'failed'::text]))),
  constraint work_units_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint work_units_run_id_fkey foreign key (run_id) references mdame.pipeline_runs(id)
);

comment on column mdame.work_units.similarity is 'The channel-standing guard''s checks of the unit: {checks: [{compared, threshold, closest, verdict, action, checked_at}]} (shared/contracts/similarity.ts); null before its first check.';

comment on column mdame.work_units.video_music is 'The music track of the video and its licence (track_key, license_key, title, author, license, source_url); null without a bed.';

create index work_units_open_idx on mdame.work_units (stage_deadline) where (stage <> ALL (array['published'::text, 'rejected'::text, 'failed'::text]));
create index work_units_run_idx on mdame.work_units (run_id);
create index work_units_failed_idx on mdame.work_units (updated_at) where (stage = 'failed'::text);
create index work_units_lease_idx on mdame.work_units (lease_expires_at) where (lease_holder is not null);

alter table mdame.work_units enable row level security;
