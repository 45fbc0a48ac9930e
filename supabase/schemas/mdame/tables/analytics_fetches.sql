-- The YouTube Analytics fetches of published videos: one row per publication and window (day 3 and
-- day 7 after publication), created when mdame.schedule_analytics_fetches enqueued it, so a window
-- is enqueued once. queued until the figures are recorded (fetched) or the retries are spent
-- (given_up); msg_id is its message on the analytics_fetches queue.
create table mdame.analytics_fetches (
  publication_id uuid not null,
  window_days integer not null,
  status text not null default 'queued'::text,
  msg_id bigint,
  attempts integer not null default 0,
  due_at timestamp with time zone not null,
  enqueued_at timestamp with time zone not null,
  last_error text,
  finished_at timestamp with time zone,
  constraint analytics_fetches_pkey primary key (publication_id, window_days),
  constraint analytics_fetches_publication_id_fkey foreign key (publication_id) references mdame.publications(id),
  constraint analytics_fetches_window_days_check check ((window_days = any (array[3, 7]))),
  constraint analytics_fetches_status_check check ((status = any (array['queued'::text, 'fetched'::text, 'given_up'::text]))),
  constraint analytics_fetches_attempts_check check ((attempts >= 0))
);

comment on table mdame.analytics_fetches is 'Each published YouTube video''s day-3 and day-7 Analytics fetch: enqueued once, then fetched or given up.';

alter table mdame.analytics_fetches enable row level security;
