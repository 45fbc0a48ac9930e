-- Which backend made a scene's clip (null while queued).

create table mdame.scenes (
  id uuid not null default gen_random_uuid(),
  unit_id uuid not null,
  scene_index integer not null,
  prompt text not null,
  narration text not null,
  first_word integer not null,
  duration_s numeric(6,2) not null,
  scene_hash text not null,
  status text not null default 'queued'::text,
  asset_key text,
  cache_hit boolean,
  msg_id bigint,
  job jsonb,
  updated_at timestamp with time zone not null default now(),
  backend text,
  constraint scenes_pkey primary key (id),
  constraint scenes_unit_id_scene_index_key unique (unit_id, scene_index),
  constraint scenes_duration_s_check check ((duration_s > (0)::numeric)),
  constraint scenes_first_word_check check ((first_word >= 0)),
  constraint scenes_scene_hash_check check ((scene_hash ~ '^[0-9a-f]{64}$'::text)),
  constraint scenes_scene_index_check check ((scene_index >= 0)),
  constraint scenes_status_check check ((status = any (array['queued'::text, 'ready'::text, 'failed'::text]))),
  constraint scenes_unit_id_fkey foreign key (unit_id) references mdame.work_units(id)
);

create index scenes_asset_key_idx on mdame.scenes (asset_key) where (asset_key is not null);

alter table mdame.scenes enable row level security;
