create table mdame.settings (
  key text not null,
  value text not null,
  updated_at timestamp with time zone not null default now(),
  constraint settings_pkey primary key (key)
);

comment on table mdame.settings is 'Engine settings; key env records dev|prod for the environment guard.';

alter table mdame.settings enable row level security;
