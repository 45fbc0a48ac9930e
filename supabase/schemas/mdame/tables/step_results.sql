create table mdame.step_results (
  step_token text not null,
  result jsonb not null,
  created_at timestamp with time zone not null default now(),
  constraint step_results_pkey primary key (step_token),
  constraint step_results_step_token_check check ((step_token ~~ 'step:%'::text))
);

create index step_results_created_idx on mdame.step_results (created_at);

alter table mdame.step_results enable row level security;
