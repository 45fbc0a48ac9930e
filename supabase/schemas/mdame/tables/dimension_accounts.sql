create table mdame.dimension_accounts (
  id uuid not null default gen_random_uuid(),
  dimension_id text not null,
  platform text not null,
  channel_handle text not null,
  credentials_enc text,
  active boolean not null default true,
  created_at timestamp with time zone not null default now(),
  channel_id text,
  connected_at timestamp with time zone,
  updated_at timestamp with time zone not null default now(),
  oauth_client_id text not null default 'default'::text,
  upload_cap_24h integer not null default 15,
  upload_cap_full_until timestamp with time zone,
  health_state text not null default 'ok'::text,
  health_reason text,
  health_since timestamp with time zone,
  granted_scopes text[],
  constraint dimension_accounts_pkey primary key (id),
  constraint dimension_accounts_dimension_id_platform_channel_handle_key unique (dimension_id, platform, channel_handle),
  constraint dimension_accounts_health_state_check check ((health_state = any (array['ok'::text, 'needs_reconnect'::text]))),
  constraint dimension_accounts_upload_cap_24h_check check ((upload_cap_24h > 0)),
  constraint dimension_accounts_platform_check check ((platform = any (array['youtube'::text, 'tiktok'::text, 'instagram'::text, 'facebook'::text]))),
  constraint dimension_accounts_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id)
);

comment on column mdame.dimension_accounts.credentials_enc is 'AES-256-GCM sealed credentials; the key lives only in the processes that publish.';

comment on column mdame.dimension_accounts.oauth_client_id is 'The OAuth client the account was connected through (a Google project for YouTube, whose quota its calls spend, recorded in youtube_projects; a client key for TikTok).';
comment on column mdame.dimension_accounts.upload_cap_24h is 'Uploads the channel may make in any 24 hours; 15 by default (YouTube publishes no figure), lowered when YouTube answers uploadLimitExceeded.';
comment on column mdame.dimension_accounts.upload_cap_full_until is 'Set when YouTube answered uploadLimitExceeded: the channel takes no upload before then (web and mobile uploads count too).';
comment on column mdame.dimension_accounts.health_state is 'ok, or needs_reconnect once Google refused the grant (invalid_grant, or a 401 after a fresh token); a connect clears it.';

comment on column mdame.dimension_accounts.granted_scopes is 'The OAuth scopes the last connect''s grant carried (the token answer''s scope); null when connected before scopes were recorded.';

alter table mdame.dimension_accounts enable row level security;
