create table mdame.quota_reservations (
  publication_id uuid not null,
  account_id uuid not null,
  usage_date date not null,
  units integer not null,
  created_at timestamp with time zone not null default now(),
  constraint quota_reservations_pkey primary key (publication_id),
  constraint quota_reservations_units_check check ((units > 0)),
  constraint quota_reservations_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id),
  constraint quota_reservations_publication_id_fkey foreign key (publication_id) references mdame.publications(id)
);

create index quota_reservations_day_idx on mdame.quota_reservations (account_id, usage_date);

alter table mdame.quota_reservations enable row level security;
