-- One row per TikTok API call an account made, on the engine's clock: what its rate windows count.
create table mdame.tiktok_calls (
  id bigint generated always as identity,
  account_id uuid not null,
  call_kind text not null,
  created_at timestamp with time zone not null,
  constraint tiktok_calls_pkey primary key (id),
  constraint tiktok_calls_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id) on delete cascade,
  constraint tiktok_calls_call_kind_fkey foreign key (call_kind) references mdame.tiktok_rate_limits(call_kind)
);

create index tiktok_calls_window_idx on mdame.tiktok_calls (account_id, call_kind, created_at);

alter table mdame.tiktok_calls enable row level security;
