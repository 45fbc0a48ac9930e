create table mdame.system_locks (
  name text not null,
  holder text not null,
  acquired_at timestamp with time zone not null default now(),
  lease_expires_at timestamp with time zone not null,
  constraint system_locks_pkey primary key (name)
);

alter table mdame.system_locks enable row level security;
