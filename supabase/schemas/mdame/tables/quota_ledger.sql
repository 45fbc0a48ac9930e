-- The YouTube quota ledger: one row per call reserved before it is made (status reserved), settled
-- once YouTube accepted it, released when it failed before YouTube accepted anything. A correction
-- row fills a bucket YouTube said was spent (quotaExceeded) for the rest of its quota day.
create table mdame.quota_ledger (
  id uuid not null default gen_random_uuid(),
  oauth_client_id text not null,
  account_id uuid not null,
  publication_id uuid,
  call_kind text not null,
  bucket text not null,
  cost integer not null,
  quota_day date not null,
  entry text not null default 'call'::text,
  status text not null default 'reserved'::text,
  created_at timestamp with time zone not null default now(),
  settled_at timestamp with time zone,
  constraint quota_ledger_pkey primary key (id),
  constraint quota_ledger_bucket_check check ((bucket = any (array['uploads'::text, 'units'::text, 'analytics'::text, 'stats'::text]))),
  constraint quota_ledger_cost_check check ((cost > 0)),
  constraint quota_ledger_entry_check check ((entry = any (array['call'::text, 'correction'::text]))),
  constraint quota_ledger_status_check check ((status = any (array['reserved'::text, 'settled'::text, 'released'::text]))),
  constraint quota_ledger_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id),
  constraint quota_ledger_call_kind_fkey foreign key (call_kind) references mdame.youtube_call_costs(call_kind),
  constraint quota_ledger_oauth_client_id_fkey foreign key (oauth_client_id) references mdame.youtube_projects(oauth_client_id),
  constraint quota_ledger_publication_id_fkey foreign key (publication_id) references mdame.publications(id)
);

create index quota_ledger_bucket_day_idx on mdame.quota_ledger (oauth_client_id, quota_day, bucket);
create index quota_ledger_account_uploads_idx on mdame.quota_ledger (account_id, created_at) where ((entry = 'call'::text) and (call_kind = 'videos.insert'::text));
create unique index quota_ledger_publication_call_idx on mdame.quota_ledger (publication_id, call_kind) where ((publication_id is not null) and (entry = 'call'::text) and (status <> 'released'::text));

alter table mdame.quota_ledger enable row level security;
