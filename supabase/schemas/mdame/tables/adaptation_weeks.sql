-- The weekly decisions: the Sunday job (schedules.sql) marks the week due and wakes the runner; the
-- tick claims the week, decides for every dimension and marks it finished. A claim older than 15
-- minutes without a finish is taken over (the runner died mid-week): the decisions are idempotent.
create table mdame.adaptation_weeks (
  week_start date not null,
  due_at timestamp with time zone not null,
  claimed_at timestamp with time zone,
  finished_at timestamp with time zone,
  constraint adaptation_weeks_pkey primary key (week_start)
);

alter table mdame.adaptation_weeks enable row level security;
