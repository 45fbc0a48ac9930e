-- The worker recorded its entry already (record_scene_asset); this covers a worker that did not.

create table mdame.scene_cache (
  scene_hash text not null,
  asset_key text not null,
  backend text not null,
  created_at timestamp with time zone not null default now(),
  backend_name text generated always as (
CASE
    WHEN (backend ~~ 'procedural-ffmpeg/%'::text) THEN 'procedural'::text
    ELSE split_part(backend, '/'::text, 1)
END) stored,
  credit jsonb,
  last_hit_at timestamp with time zone not null default now(),
  constraint scene_cache_pkey primary key (scene_hash, backend),
  constraint scene_cache_credit_check check (((credit is null) or (jsonb_typeof(credit) = 'object'::text))),
  constraint scene_cache_scene_hash_check check ((scene_hash ~ '^[0-9a-f]{64}$'::text))
);

comment on column mdame.scene_cache.last_hit_at is 'When the entry was made or last hit (engine clock): it expires scene_cache_ttl_days after (mdame.housekeeping).';

create index scene_cache_asset_key_idx on mdame.scene_cache (asset_key);

create index scene_cache_last_hit_idx on mdame.scene_cache (last_hit_at);

alter table mdame.scene_cache enable row level security;
