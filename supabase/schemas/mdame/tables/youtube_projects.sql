-- A Google Cloud project as YouTube meters it, identified by the OAuth client id its accounts were
-- connected through: every channel connected through one client shares its two daily buckets,
-- videos.insert calls and Data API units (docs/distribution.md). Sizes are per project: a project
-- YouTube granted more quota gets its figures here.
create table mdame.youtube_projects (
  oauth_client_id text not null,
  upload_calls_per_day integer not null default 100,
  api_units_per_day integer not null default 10000,
  analytics_queries_per_day integer not null default 10000,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  constraint youtube_projects_pkey primary key (oauth_client_id),
  constraint youtube_projects_oauth_client_id_check check ((oauth_client_id <> ''::text)),
  constraint youtube_projects_upload_calls_per_day_check check ((upload_calls_per_day >= 0)),
  constraint youtube_projects_api_units_per_day_check check ((api_units_per_day >= 0)),
  constraint youtube_projects_analytics_queries_per_day_check check ((analytics_queries_per_day >= 0))
);

comment on column mdame.youtube_projects.analytics_queries_per_day is 'YouTube Analytics API reports.query calls the project may make per Pacific day: a quota of its own, apart from the Data API units (docs/analytics.md).';

comment on table mdame.youtube_projects is 'Google projects (OAuth clients) and the sizes of their daily YouTube buckets; project default holds accounts connected before the client was recorded.';

alter table mdame.youtube_projects enable row level security;

insert into mdame.youtube_projects (oauth_client_id) values ('default') on conflict do nothing;
