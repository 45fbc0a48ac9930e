-- The adaptive engine's record: every move of a dimension's bounded parameter, with the evidence it
-- was decided on. A run's configuration is the dimension's contract overlaid with the newest applied,
-- unreverted move of each parameter (mdame.apply_adaptations); a revert stamps reverted_at, so the
-- move before it (or the contract) is in force again. week_start names the weekly decision that made
-- it (one move per dimension, parameter and week); null for a move the operator asked for.
create table mdame.adaptations (
  id uuid not null default gen_random_uuid(),
  dimension_id text not null,
  parameter text not null,
  before jsonb not null,
  after jsonb not null,
  reason text not null,
  evidence jsonb not null default '{}'::jsonb,
  week_start date,
  decided_at timestamp with time zone not null,
  applied boolean not null default true,
  reverted_at timestamp with time zone,
  seq bigint generated always as identity,
  constraint adaptations_pkey primary key (id),
  constraint adaptations_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint adaptations_parameter_check check ((parameter ~ '^(daily_volume|hook_threshold|video_length|source_weight\.[a-z_]+|topic_category\.[a-z0-9][a-z0-9 &''._-]{0,59})$'::text)),
  constraint adaptations_reason_check check (((length(reason) >= 1) and (length(reason) <= 2000))),
  constraint adaptations_evidence_check check ((jsonb_typeof(evidence) = 'object'::text))
);

create unique index adaptations_weekly_key on mdame.adaptations (dimension_id, parameter, week_start) where (week_start is not null);
create index adaptations_in_force_idx on mdame.adaptations (dimension_id, parameter, seq desc) where (applied and (reverted_at is null));

alter table mdame.adaptations enable row level security;
