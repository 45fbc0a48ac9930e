create table mdame.publications (
  id uuid not null default gen_random_uuid(),
  unit_id uuid not null,
  account_id uuid not null,
  platform text not null,
  status text not null default 'pending'::text,
  upload_session_uri text,
  external_id text,
  video_key text,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  published_at timestamp with time zone,
  deferred_reason text,
  not_before timestamp with time zone,
  privacy_status text,
  privacy_requested text,
  deferred_since timestamp with time zone,
  skip_reason text,
  constraint publications_pkey primary key (id),
  constraint publications_unit_id_account_id_key unique (unit_id, account_id),
  constraint publications_platform_check check ((platform = any (array['youtube'::text, 'tiktok'::text, 'instagram'::text, 'facebook'::text]))),
  constraint publications_status_check check ((status = any (array['pending'::text, 'uploading'::text, 'published'::text, 'deferred'::text, 'failed'::text, 'skipped'::text]))),
  constraint publications_skip_reason_check check (((status = 'skipped'::text) = (skip_reason is not null))),
  constraint publications_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id),
  constraint publications_deferred_reason_check check ((deferred_reason = any (array['quota_spent'::text, 'channel_cap'::text, 'rate_limited'::text, 'needs_reconnect'::text]))),
  constraint publications_unit_id_fkey foreign key (unit_id) references mdame.work_units(id)
);

create unique index publications_external_idx on mdame.publications (platform, external_id) where (external_id is not null);

create index publications_deferred_idx on mdame.publications (not_before) where (status = 'deferred'::text);

create index publications_recent_idx on mdame.publications (COALESCE(published_at, created_at));

comment on column mdame.publications.not_before is 'A deferred publication is tried again from then on (null: once its account is reconnected).';
comment on column mdame.publications.skip_reason is 'Why the account will not take this video (status skipped: a Facebook Reel longer than 90 s, a privacy the platform cannot give); the unit''s other accounts publish.';
comment on column mdame.publications.deferred_since is 'When the publication last entered status deferred (engine clock), kept by a trigger; null when it is not deferred.';

comment on column mdame.publications.privacy_requested is 'The privacy the engine asked for (recorded with privacy_status): a difference means the platform locked the upload.';
comment on column mdame.publications.privacy_status is 'The privacy the platform gave the finished upload (YouTube status.privacyStatus, TikTok privacy_level); private when public was asked means the platform locked it.';

alter table mdame.publications enable row level security;
