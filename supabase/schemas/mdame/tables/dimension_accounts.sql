create table mdame.dimension_accounts (
  id uuid not null default gen_random_uuid(),
  dimension_id text not null,
  platform text not null,
  channel_handle text not null,
  credentials_enc text,
  daily_quota_units integer not null default 10000,
  active boolean not null default true,
  created_at timestamp with time zone not null default now(),
  channel_id text,
  connected_at timestamp with time zone,
  updated_at timestamp with time zone not null default now(),
  constraint dimension_accounts_pkey primary key (id),
  constraint dimension_accounts_dimension_id_platform_channel_handle_key unique (dimension_id, platform, channel_handle),
  constraint dimension_accounts_daily_quota_units_check check ((daily_quota_units > 0)),
  constraint dimension_accounts_platform_check check ((platform = 'youtube'::text)),
  constraint dimension_accounts_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id)
);

comment on column mdame.dimension_accounts.credentials_enc is 'AES-256-GCM sealed credentials; the key lives only in the processes that publish.';

alter table mdame.dimension_accounts enable row level security;
