-- Review before publish (docs/guides/review.md): a row per rendered unit of a dimension whose run's
-- configuration requires review, written when its render passed the quality gate
-- (complete_render_job) and decided once, by the operator (approve_review, reject_review) or by its
-- expiry (expire_reviews, following on_expiry). A rejection keeps its reason here: the weekly report
-- counts and lists them per dimension, and the adaptive engine's evidence carries each rejected unit
-- (get_adaptation_evidence). `edits` keeps the script's title and description as they were before
-- an approval replaced them.

create table mdame.unit_reviews (
  unit_id uuid not null,
  run_id uuid not null,
  dimension_id text not null,
  requested_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  on_expiry text not null,
  decision text,
  decided_by text,
  decided_at timestamp with time zone,
  reason text,
  edits jsonb,
  constraint unit_reviews_pkey primary key (unit_id),
  constraint unit_reviews_on_expiry_check check ((on_expiry = any (array['reject'::text, 'publish'::text]))),
  constraint unit_reviews_decision_check check (((decision is null) or (decision = any (array['approved'::text, 'rejected'::text])))),
  constraint unit_reviews_decided_by_check check (((decided_by is null) or (decided_by = any (array['operator'::text, 'expiry'::text])))),
  constraint unit_reviews_decided_check check ((((decision is null) and (decided_by is null) and (decided_at is null)) or ((decision is not null) and (decided_by is not null) and (decided_at is not null)))),
  constraint unit_reviews_reason_check check (((reason is null) or ((length(reason) >= 1) and (length(reason) <= 500)))),
  constraint unit_reviews_edits_check check (((edits is null) or (jsonb_typeof(edits) = 'object'::text))),
  constraint unit_reviews_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint unit_reviews_run_id_fkey foreign key (run_id) references mdame.pipeline_runs(id),
  constraint unit_reviews_unit_id_fkey foreign key (unit_id) references mdame.work_units(id)
);

comment on table mdame.unit_reviews is 'Review before publish: one row per unit that waited for review, with its decision, who made it, the reason of a rejection and the replaced title/description.';

create index unit_reviews_pending_idx on mdame.unit_reviews (expires_at) where (decision is null);
create index unit_reviews_decided_idx on mdame.unit_reviews (dimension_id, decided_at) where (decision is not null);

alter table mdame.unit_reviews enable row level security;
