-- A Google Cloud project as YouTube meters it, identified by the OAuth client id its accounts were
-- connected through: every channel connected through one client shares its daily buckets:
-- videos.insert calls, Data API units, videos.batchGetStats units and YouTube Analytics queries
-- (docs/reference/distribution.md). Sizes are per project: a project
-- YouTube granted more quota gets its figures here.
create table mdame.youtube_projects (
  oauth_client_id text not null,
  upload_calls_per_day integer not null default 100,
  api_units_per_day integer not null default 10000,
  analytics_queries_per_day integer not null default 10000,
  stats_units_per_day integer not null default 10000,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  name text,
  client_secret_enc text,
  constraint youtube_projects_pkey primary key (oauth_client_id),
  constraint youtube_projects_name_key unique (name),
  constraint youtube_projects_name_check check ((name ~ '^[a-z0-9][a-z0-9-]{0,39}$'::text) and (name <> 'default'::text)),
  constraint youtube_projects_registered_check check (((name is null) = (client_secret_enc is null))),
  constraint youtube_projects_oauth_client_id_check check ((oauth_client_id <> ''::text)),
  constraint youtube_projects_upload_calls_per_day_check check ((upload_calls_per_day >= 0)),
  constraint youtube_projects_api_units_per_day_check check ((api_units_per_day >= 0)),
  constraint youtube_projects_analytics_queries_per_day_check check ((analytics_queries_per_day >= 0)),
  constraint youtube_projects_stats_units_per_day_check check ((stats_units_per_day >= 0))
);

comment on column mdame.youtube_projects.analytics_queries_per_day is 'YouTube Analytics API reports.query calls the project may make per Pacific day: a quota of its own, apart from the Data API units (docs/reference/analytics.md).';

comment on column mdame.youtube_projects.stats_units_per_day is 'Data API units the project may spend per Pacific day on videos.batchGetStats: since 3 Jun 2026 a bucket of its own, apart from the other calls'' units.';

comment on column mdame.youtube_projects.name is 'The short name an operator registered the project under (mdame youtube-project add); null for a project met only through connects with the environment''s client (GOOGLE_OAUTH_CLIENT_ID), which is the project default.';
comment on column mdame.youtube_projects.client_secret_enc is 'The OAuth client secret, AES-256-GCM sealed with the credentials key ring for this client id; null when the environment''s GOOGLE_OAUTH_CLIENT_SECRET serves the project.';

comment on table mdame.youtube_projects is 'Google projects (OAuth clients) and the sizes of their daily YouTube buckets; project default holds accounts connected before the client was recorded.';

alter table mdame.youtube_projects enable row level security;

insert into mdame.youtube_projects (oauth_client_id) values ('default') on conflict do nothing;
