-- What a provider's call costs, per model and unit kind, in USD per unit: the one price table that
-- record_provider_usage prices every recorded call with and check_spend_budget estimates with.
-- model '*' is the provider's price for any model without a row of its own. Rows with source
-- 'default' are seeded from the providers' public price pages (docs/reference/spend.md names each);
-- `mdame prices set` overrides a row (source 'operator', default kept in default_usd_per_unit so
-- `mdame prices reset` restores it), and may add a row no default names (reset removes it).
create table mdame.provider_prices (
  provider text not null,
  model text not null,
  kind text not null,
  usd_per_unit numeric not null,
  default_usd_per_unit numeric,
  source text not null default 'default'::text,
  updated_at timestamp with time zone not null default now(),
  constraint provider_prices_pkey primary key (provider, model, kind),
  constraint provider_prices_kind_check check ((kind = any (array['input_tokens'::text, 'output_tokens'::text, 'images'::text, 'characters'::text, 'audio_seconds'::text, 'requests'::text, 'gpu_seconds'::text]))),
  constraint provider_prices_model_check check (((length(model) >= 1) and (length(model) <= 120))),
  constraint provider_prices_provider_check check ((provider ~ '^[a-z][a-z0-9-]{1,40}$'::text)),
  constraint provider_prices_source_check check ((source = any (array['default'::text, 'operator'::text]))),
  constraint provider_prices_usd_check check (((usd_per_unit >= (0)::numeric) and (usd_per_unit <= (1000)::numeric)))
);

alter table mdame.provider_prices enable row level security;

insert into mdame.provider_prices (provider, model, kind, usd_per_unit, default_usd_per_unit) values
  ('gemini', '*', 'input_tokens', 0.0000003, 0.0000003),
  ('gemini', '*', 'output_tokens', 0.0000025, 0.0000025),
  ('gemini', 'gemini-2.5-pro', 'input_tokens', 0.00000125, 0.00000125),
  ('gemini', 'gemini-2.5-pro', 'output_tokens', 0.00001, 0.00001),
  ('gemini', 'gemini-2.5-flash-lite', 'input_tokens', 0.0000001, 0.0000001),
  ('gemini', 'gemini-2.5-flash-lite', 'output_tokens', 0.0000004, 0.0000004),
  ('openai-compat', '*', 'input_tokens', 0.00000015, 0.00000015),
  ('openai-compat', '*', 'output_tokens', 0.0000006, 0.0000006),
  ('gemini-tts', '*', 'characters', 0.00000012, 0.00000012),
  ('gemini-tts', '*', 'audio_seconds', 0.00025, 0.00025),
  ('edge-tts', '*', 'characters', 0, 0),
  ('gemini-image', '*', 'images', 0.039, 0.039),
  ('pexels', '*', 'requests', 0, 0),
  ('comfyui', '*', 'gpu_seconds', 0.0003, 0.0003)
on conflict do nothing;
