create table mdame.llm_cache (
  cache_key text not null,
  model text not null,
  response jsonb not null,
  created_at timestamp with time zone not null default now(),
  constraint llm_cache_pkey primary key (cache_key),
  constraint llm_cache_cache_key_check check ((cache_key ~ '^[0-9a-f]{64}$'::text))
);

create index llm_cache_created_idx on mdame.llm_cache (created_at);

alter table mdame.llm_cache enable row level security;
