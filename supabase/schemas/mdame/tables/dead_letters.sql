create table mdame.dead_letters (
  id bigint generated always as identity,
  queue_name text not null,
  msg_id bigint not null,
  read_ct integer not null,
  payload jsonb not null,
  last_error text not null,
  unit_id uuid,
  created_at timestamp with time zone not null default now(),
  retried_at timestamp with time zone,
  retried_msg_id bigint,
  constraint dead_letters_pkey primary key (id),
  constraint dead_letters_queue_name_msg_id_key unique (queue_name, msg_id),
  constraint dead_letters_unit_id_fkey foreign key (unit_id) references mdame.work_units(id)
);

alter table mdame.dead_letters enable row level security;
