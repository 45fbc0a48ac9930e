-- Local development seed: the dev environment and two demo dimensions in two languages, each with
-- one YouTube account. Credentials are sealed after the seed by the local stack (scripts/local/seed-credentials.ts),
-- because the sealing key lives outside the database.

insert into mdame.settings (key, value) values ('env', 'dev')
on conflict (key) do update set value = excluded.value, updated_at = now();

insert into mdame.dimensions (id, display_name, language, tts_voice, tts_rate, trend_geo, style, safety_profile, daily_limit) values
  ('tech-explained', 'Tech Explained', 'en', 'en-US-AriaNeural', '+0%', 'US',
   '{"palette": ["#0b132b", "#1c2541", "#3a506b", "#5bc0be"], "motion": "drift", "caption_font": "DejaVu Sans"}',
   '{"blocked_terms": ["gambling", "casino", "weapon", "firearm", "betting"]}', 1),
  ('sains-singkat', 'Sains Singkat', 'id', 'id-ID-GadisNeural', '+0%', 'ID',
   '{"palette": ["#2d1e2f", "#6a2c70", "#f08a5d", "#f9ed69"], "motion": "pulse", "caption_font": "DejaVu Sans"}',
   '{"blocked_terms": ["judi", "taruhan", "senjata", "gambling", "casino"]}', 1)
on conflict (id) do nothing;

insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, daily_quota_units) values
  ('tech-explained', 'youtube', '@tech-explained-demo', 10000),
  ('sains-singkat', 'youtube', '@sains-singkat-demo', 10000)
on conflict (dimension_id, platform, channel_handle) do nothing;
