create table mdame.safety_audit_logs (
  id bigint generated always as identity,
  run_id uuid,
  unit_id uuid,
  dimension_id text not null,
  subject text not null,
  subject_text text not null,
  verdict text not null,
  reasons jsonb not null default '[]'::jsonb,
  classifier text not null,
  created_at timestamp with time zone not null default now(),
  category text,
  model text,
  confidence real,
  constraint safety_audit_logs_pkey primary key (id),
  constraint safety_audit_logs_confidence_check check (((confidence >= (0)::double precision) and (confidence <= (1)::double precision))),
  constraint safety_audit_logs_subject_check check ((subject = any (array['topic'::text, 'script'::text, 'scene_plan'::text]))),
  constraint safety_audit_logs_verdict_check check ((verdict = any (array['allowed'::text, 'rejected'::text]))),
  constraint safety_audit_logs_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint safety_audit_logs_run_id_fkey foreign key (run_id) references mdame.pipeline_runs(id),
  constraint safety_audit_logs_unit_id_fkey foreign key (unit_id) references mdame.work_units(id)
);

create index safety_audit_logs_run_idx on mdame.safety_audit_logs (run_id, subject);

alter table mdame.safety_audit_logs enable row level security;
