-- The unique key serialises two claimers: the second waits for the first's insert, then finds a
-- live lease held by someone else and updates nothing.

create table mdame.scene_generation_claims (
  scene_hash text not null,
  backend text not null,
  holder text not null,
  lease_until timestamp with time zone not null,
  claims integer not null default 1,
  asset_key text,
  constraint scene_generation_claims_pkey primary key (scene_hash, backend),
  constraint scene_generation_claims_scene_hash_check check ((scene_hash ~ '^[0-9a-f]{64}$'::text))
);

alter table mdame.scene_generation_claims enable row level security;
