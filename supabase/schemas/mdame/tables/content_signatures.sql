-- The channel-standing guard's signature of each unit that passed it (docs/reference/similarity.md):
-- MinHash signatures of its title, hook and script (128 values each, shared/similarity/minhash.ts)
-- and its scenes' content hashes, so a new unit is compared with a dimension's latest videos by one
-- indexed read (mdame.get_content_signatures) instead of recomputing their texts.

create table mdame.content_signatures (
  unit_id uuid not null,
  dimension_id text not null,
  title text not null,
  title_minhash integer[] not null,
  hook_minhash integer[] not null,
  script_minhash integer[] not null,
  scene_hashes text[] not null,
  created_at timestamp with time zone not null default now(),
  constraint content_signatures_pkey primary key (unit_id),
  constraint content_signatures_minhash_size check (((cardinality(title_minhash) = 128) and (cardinality(hook_minhash) = 128) and (cardinality(script_minhash) = 128))),
  constraint content_signatures_scene_hashes_check check ((cardinality(scene_hashes) <= 20)),
  constraint content_signatures_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint content_signatures_unit_id_fkey foreign key (unit_id) references mdame.work_units(id)
);

create index content_signatures_recent_idx on mdame.content_signatures (dimension_id, created_at desc);

alter table mdame.content_signatures enable row level security;
