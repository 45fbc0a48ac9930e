-- Every paid provider call, one row per unit kind it used (tokens in and out are two rows of one
-- call), written by record_provider_usage: the quantity, the price in force (provider_prices) and
-- the cost, and whose call it was (dimension, run, unit, stage). A cached answer is recorded too,
-- at cost 0 with cached = true. call_key is the call's own key, so a recording sent twice counts once.
create table mdame.provider_usage (
  id bigint generated always as identity not null,
  call_key text not null,
  provider text not null,
  model text not null,
  kind text not null,
  quantity numeric not null,
  usd_per_unit numeric,
  usd numeric not null,
  cached boolean not null default false,
  dimension_id text,
  run_id uuid,
  unit_id uuid,
  stage text,
  recorded_at timestamp with time zone not null default now(),
  constraint provider_usage_pkey primary key (id),
  constraint provider_usage_call_key_check check (((length(call_key) >= 1) and (length(call_key) <= 300))),
  constraint provider_usage_cost_check check (((usd >= (0)::numeric) and ((not cached) or (usd = (0)::numeric)))),
  constraint provider_usage_kind_check check ((kind = any (array['input_tokens'::text, 'output_tokens'::text, 'images'::text, 'characters'::text, 'audio_seconds'::text, 'requests'::text, 'gpu_seconds'::text]))),
  constraint provider_usage_quantity_check check ((quantity >= (0)::numeric))
);

create unique index provider_usage_call_kind_idx on mdame.provider_usage (call_key, kind);
create index provider_usage_dimension_idx on mdame.provider_usage (dimension_id, recorded_at);
create index provider_usage_unit_idx on mdame.provider_usage (unit_id) where (unit_id is not null);
-- The housekeeping pass's oldest records first (spend_days).
create index provider_usage_recorded_idx on mdame.provider_usage (recorded_at);

alter table mdame.provider_usage enable row level security;
