-- How long a dimension's videos run, as the narration's word count: the script prompt asks for it
-- and the script stage refuses drafts outside it. 95-150 words is 40-60 s of speech at a normal
-- pace; the bounds keep every dimension inside what a vertical short can hold.

create table mdame.dimensions (
  id text not null,
  display_name text not null,
  language text not null,
  tts_voice text not null,
  tts_rate text not null default '+0%'::text,
  trend_geo text not null,
  style jsonb not null,
  safety_profile jsonb not null default '{"blocked_terms": []}'::jsonb,
  daily_limit integer not null default 1,
  active boolean not null default true,
  created_at timestamp with time zone not null default now(),
  narration_min_words integer not null default 95,
  narration_max_words integer not null default 150,
  updated_at timestamp with time zone not null default now(),
  visuals jsonb not null default '{"backends": ["procedural"], "pexels_blocklist": []}'::jsonb,
  music jsonb,
  captions jsonb not null default '{"profile": "platforms"}'::jsonb,
  tts_fallback_voice text,
  subject jsonb not null default '{"keywords": [], "categories": [], "excluded_terms": []}'::jsonb,
  sources jsonb not null default '[{"kind": "google_trends", "weight": 1}]'::jsonb,
  min_score double precision not null default 0,
  llm jsonb not null default '{}'::jsonb,
  publishing jsonb not null default '{"run_time": null, "time_zone": "UTC", "category_id": "27", "publish_time": null, "made_for_kids": false, "privacy_status": "public", "default_audio_language": null, "contains_synthetic_media": true}'::jsonb,
  alerts jsonb,
  review jsonb,
  adapt jsonb not null default '{"pinned": [], "min_sample": 8, "video_length": {"step_s": 3, "spread_s": 4, "target_s": null}, "daily_volume": {"max": null, "min": null, "step": 1}, "min_effect_pp": 3, "cooldown_weeks": 4, "hook_threshold": {"max": 0.85, "min": 0.65, "step": 0.02, "value": 0.72}, "source_weights": {"max": 1, "min": 0.2, "step": 0.1}, "topic_categories": {"boost": 0.15, "avoided": [], "favoured": []}}'::jsonb,
  similarity jsonb not null default '{"threshold": 0.5, "compare_last": 60, "max_regenerations": 2}'::jsonb,
  budget jsonb,
  constraint dimensions_pkey primary key (id),
  constraint dimensions_adapt_check check ((jsonb_typeof(adapt) = 'object'::text)),
  constraint dimensions_budget_check check (((budget is null) or ((jsonb_typeof(budget) = 'object'::text) and ((budget - array['daily_usd'::text, 'monthly_usd'::text]) = '{}'::jsonb) and ((not (budget ? 'daily_usd'::text)) or ((jsonb_typeof((budget -> 'daily_usd'::text)) = 'number'::text) and (((budget ->> 'daily_usd'::text))::numeric >= (0)::numeric))) and ((not (budget ? 'monthly_usd'::text)) or ((jsonb_typeof((budget -> 'monthly_usd'::text)) = 'number'::text) and (((budget ->> 'monthly_usd'::text))::numeric >= (0)::numeric)))))),
  constraint dimensions_captions_check check (((jsonb_typeof(captions) = 'object'::text) and ((captions - 'profile'::text) = '{}'::jsonb) and (COALESCE((captions ->> 'profile'::text), ''::text) = any (array['platforms'::text, 'intersection'::text, 'youtube_shorts'::text, 'tiktok'::text, 'reels'::text])))),
  constraint dimensions_daily_limit_check check (((daily_limit >= 0) and (daily_limit <= 50))),
  constraint dimensions_id_check check ((id ~ '^[a-z0-9][a-z0-9_-]{1,40}$'::text)),
  constraint dimensions_language_check check ((language ~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*$'::text)),
  constraint dimensions_llm_check check (mdame.llm_routing_is_valid(llm)),
  constraint dimensions_min_score_range check (((min_score >= (0)::double precision) and (min_score <= (1)::double precision))),
  constraint dimensions_music_check check (((music is null) or ((jsonb_typeof(music) = 'object'::text) and ((music - array['library'::text, 'gain_db'::text, 'duck_db'::text, 'fade_s'::text]) = '{}'::jsonb) and
case
    when (jsonb_typeof((music -> 'library'::text)) = 'string'::text) then ((length((music ->> 'library'::text)) <= 200) and ((music ->> 'library'::text) ~ '^[a-z0-9_-]+(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$'::text))
    else false
end and
case
    when (jsonb_typeof((music -> 'gain_db'::text)) = 'number'::text) then ((((music ->> 'gain_db'::text))::numeric >= ('-40'::integer)::numeric) and (((music ->> 'gain_db'::text))::numeric <= (0)::numeric))
    else false
end and
case
    when (jsonb_typeof((music -> 'duck_db'::text)) = 'number'::text) then ((((music ->> 'duck_db'::text))::numeric >= (0)::numeric) and (((music ->> 'duck_db'::text))::numeric <= (30)::numeric))
    else false
end and
case
    when (jsonb_typeof((music -> 'fade_s'::text)) = 'number'::text) then ((((music ->> 'fade_s'::text))::numeric >= (0)::numeric) and (((music ->> 'fade_s'::text))::numeric <= (5)::numeric))
    else false
end))),
  constraint dimensions_narration_words_check check (((narration_min_words >= 60) and (narration_max_words <= 180) and ((narration_max_words - narration_min_words) >= 10))),
  constraint dimensions_publishing_check check (mdame.publishing_is_valid(publishing)),
  constraint dimensions_sources_listed check (((jsonb_typeof(sources) = 'array'::text) and ((jsonb_array_length(sources) >= 1) and (jsonb_array_length(sources) <= 10)))),
  constraint dimensions_similarity_check check (((jsonb_typeof(similarity) = 'object'::text) and ((similarity - array['threshold'::text, 'compare_last'::text, 'max_regenerations'::text]) = '{}'::jsonb) and
case
    when (jsonb_typeof((similarity -> 'threshold'::text)) = 'number'::text) then ((((similarity ->> 'threshold'::text))::numeric >= 0.05) and (((similarity ->> 'threshold'::text))::numeric <= (1)::numeric))
    else false
end and
case
    when ((jsonb_typeof((similarity -> 'compare_last'::text)) = 'number'::text) and ((similarity ->> 'compare_last'::text) ~ '^[0-9]{1,3}$'::text)) then ((((similarity ->> 'compare_last'::text))::integer >= 1) and (((similarity ->> 'compare_last'::text))::integer <= 500))
    else false
end and (COALESCE((similarity ->> 'max_regenerations'::text), ''::text) = any (array['0'::text, '1'::text, '2'::text, '3'::text])) and (jsonb_typeof((similarity -> 'max_regenerations'::text)) = 'number'::text))),
  constraint dimensions_subject_is_object check ((jsonb_typeof(subject) = 'object'::text)),
  constraint dimensions_trend_geo_check check ((trend_geo ~ '^[A-Z]{2}$'::text)),
  constraint dimensions_tts_fallback_voice_check check (((tts_fallback_voice is null) or (tts_fallback_voice = any (array['Achernar'::text, 'Achird'::text, 'Algenib'::text, 'Algieba'::text, 'Alnilam'::text, 'Aoede'::text, 'Autonoe'::text, 'Callirrhoe'::text, 'Charon'::text, 'Despina'::text, 'Enceladus'::text, 'Erinome'::text, 'Fenrir'::text, 'Gacrux'::text, 'Iapetus'::text, 'Kore'::text, 'Laomedeia'::text, 'Leda'::text, 'Orus'::text, 'Puck'::text, 'Pulcherrima'::text, 'Rasalgethi'::text, 'Sadachbia'::text, 'Sadaltager'::text, 'Schedar'::text, 'Sulafat'::text, 'Umbriel'::text, 'Vindemiatrix'::text, 'Zephyr'::text, 'Zubenelgenubi'::text])))),
  constraint dimensions_tts_rate_check check ((tts_rate ~ '^[+-][0-9]{1,2}%$'::text)),
  constraint dimensions_tts_voice_language_check check ((split_part(tts_voice, '-'::text, 1) = split_part(language, '-'::text, 1))),
  constraint dimensions_alerts_check check (((alerts is null) or ((jsonb_typeof(alerts) = 'object'::text) and ((alerts - 'telegram_chat_id'::text) = '{}'::jsonb) and ((not (alerts ? 'telegram_chat_id'::text)) or ((jsonb_typeof((alerts -> 'telegram_chat_id'::text)) = 'string'::text) and ((alerts ->> 'telegram_chat_id'::text) ~ '^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$'::text)))))),
  constraint dimensions_review_check check (((review is null) or ((jsonb_typeof(review) = 'object'::text) and ((review - array['required'::text, 'expires_after'::text, 'on_expiry'::text]) = '{}'::jsonb) and (COALESCE(jsonb_typeof((review -> 'required'::text)), 'boolean'::text) = 'boolean'::text) and (COALESCE((review ->> 'on_expiry'::text), 'reject'::text) = any (array['reject'::text, 'publish'::text])) and (
CASE
    when (not (review ? 'expires_after'::text)) then true
    when ((jsonb_typeof((review -> 'expires_after'::text)) = 'string'::text) and ((review ->> 'expires_after'::text) ~ '^[1-9][0-9]{0,3}[mhd]$'::text)) then ((((review ->> 'expires_after'::text))::interval >= '00:10:00'::interval) and (((review ->> 'expires_after'::text))::interval <= '30 days'::interval))
    else false
END)))),
  constraint dimensions_visuals_check check (((jsonb_typeof(visuals) = 'object'::text) and (jsonb_typeof((visuals -> 'backends'::text)) = 'array'::text) and ((jsonb_array_length((visuals -> 'backends'::text)) >= 1) and (jsonb_array_length((visuals -> 'backends'::text)) <= 5)) and (((visuals -> 'backends'::text) ->> '-1'::integer) = 'procedural'::text)))
);

comment on column mdame.dimensions.music is 'Music bed: {library (storage prefix of tracks with <track>.license.json sidecars), gain_db, duck_db, fade_s}; null for voice only.';

comment on column mdame.dimensions.similarity is 'The channel-standing guard: {threshold, compare_last, max_regenerations} (shared/contracts/similarity.ts, docs/reference/similarity.md).';

comment on column mdame.dimensions.adapt is 'What the adaptive engine may move: bounds, steps, pins (shared/contracts/adapt.ts, docs/reference/adaptive.md).';

comment on column mdame.dimensions.publishing is 'Publishing settings: {category_id, privacy_status, time_zone, publish_time, run_time, made_for_kids, contains_synthetic_media, default_audio_language} (shared/contracts/publishing.ts).';

comment on column mdame.dimensions.review is 'Review before publish: {required, expires_after (10m-30d, as 90m, 24h, 2d), on_expiry (reject or publish)}; null or required false publishes without review (shared/contracts/review.ts).';

comment on column mdame.dimensions.alerts is 'Where this dimension''s alerts go: {telegram_chat_id} overrides the environment''s TELEGRAM_CHAT_ID; null keeps it.';

alter table mdame.dimensions enable row level security;

comment on column mdame.dimensions.budget is 'Spend caps in USD: {daily_usd, monthly_usd}, each optional; null: no cap (check_spend_budget, docs/reference/spend.md).';
