create table mdame.webhook_receipts (
  webhook_id text not null,
  kind text not null,
  received_at timestamp with time zone not null default now(),
  constraint webhook_receipts_pkey primary key (webhook_id)
);

alter table mdame.webhook_receipts enable row level security;
