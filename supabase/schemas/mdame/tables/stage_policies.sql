create table mdame.stage_policies (
  stage text not null,
  max_attempts integer not null,
  visibility_timeout_s integer not null,
  retry_backoff_s integer not null,
  deadline_s integer not null,
  constraint stage_policies_pkey primary key (stage),
  constraint stage_policies_deadline_s_check check (((deadline_s >= 10) and (deadline_s <= 86400))),
  constraint stage_policies_max_attempts_check check (((max_attempts >= 1) and (max_attempts <= 20))),
  constraint stage_policies_retry_backoff_s_check check (((retry_backoff_s >= 1) and (retry_backoff_s <= 3600))),
  constraint stage_policies_visibility_timeout_s_check check (((visibility_timeout_s >= 5) and (visibility_timeout_s <= 3600)))
);

comment on table mdame.stage_policies is 'Per-stage retry bound, queue visibility timeout, retry backoff and deadline.';

alter table mdame.stage_policies enable row level security;

insert into mdame.stage_policies (stage, max_attempts, visibility_timeout_s, retry_backoff_s, deadline_s) values
  ('ingest', '3', '60', '10', '600'),
  ('plan', '3', '120', '10', '900'),
  ('publish', '5', '600', '30', '3600'),
  ('render', '3', '600', '30', '3600'),
  ('safety', '3', '60', '10', '600'),
  ('script', '3', '120', '10', '900'),
  ('visual_generation', '3', '300', '15', '3600'),
  ('voice', '3', '180', '15', '900')
on conflict do nothing;
