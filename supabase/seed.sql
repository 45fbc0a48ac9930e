-- Demo data for local development: the dev environment and two demo dimensions in two languages.
-- Their scenes come from Gemini image generation and Pexels stock video (emulated locally), procedural last.
-- Accounts are not seeded: `mdame account connect youtube --dimension <id>` connects one through
-- OAuth and the operator API, which seals its refresh token (`npm run demo` does that for both).

insert into mdame.settings (key, value) values ('env', 'dev')
on conflict (key) do update set value = excluded.value, updated_at = now();

insert into mdame.dimensions (id, display_name, language, tts_voice, tts_rate, trend_geo, style, visuals, safety_profile, daily_limit) values
  ('tech-explained', 'Tech Explained', 'en', 'en-US-AriaNeural', '+0%', 'US',
   '{"palette": ["#0b132b", "#1c2541", "#3a506b", "#5bc0be"], "motion": "drift", "caption_font": "DejaVu Sans"}',
   '{"backends": ["gemini-image", "pexels", "procedural"], "pexels_blocklist": ["casino", "weapon"]}',
   '{"blocked_terms": ["gambling", "casino", "weapon", "firearm", "betting"]}', 1),
  ('sains-singkat', 'Sains Singkat', 'id', 'id-ID-GadisNeural', '+0%', 'ID',
   '{"palette": ["#2d1e2f", "#6a2c70", "#f08a5d", "#f9ed69"], "motion": "pulse", "caption_font": "DejaVu Sans"}',
   '{"backends": ["pexels", "gemini-image", "procedural"], "pexels_blocklist": ["casino", "judi"]}',
   '{"blocked_terms": ["judi", "taruhan", "senjata", "gambling", "casino"]}', 1)
on conflict (id) do nothing;

-- What each demo dimension is about and where its topics come from (docs/reference/sources.md): technology
-- and space from Google Trends US, Hacker News and English Wikipedia; science in Indonesian from
-- Google Trends ID and Indonesian Wikipedia.
update mdame.dimensions set
  subject = '{"keywords": ["technology", "tech", "software", "computing", "quantum", "telescope", "space", "ai", "robot",
                            "chip", "battery", "electric", "open source", "rocket", "satellite", "aurora", "northern lights"],
              "categories": ["technology", "science", "space", "programming"],
              "excluded_terms": ["celebrity", "gossip"]}',
  sources = '[{"kind": "google_trends", "weight": 1},
              {"kind": "hacker_news", "list": "top", "limit": 30, "weight": 0.8},
              {"kind": "wikipedia", "project": "en.wikipedia", "limit": 40, "weight": 0.6}]',
  min_score = 0.35
where id = 'tech-explained' and sources = '[{"kind": "google_trends", "weight": 1}]'::jsonb;

update mdame.dimensions set
  subject = '{"keywords": ["gerhana", "bulan", "matahari", "planet", "gunung", "gempa", "sains", "listrik", "teknologi",
                            "komodo", "satelit", "meteor", "komet", "candi"],
              "categories": ["sains", "teknologi"],
              "excluded_terms": ["judi", "gosip"]}',
  sources = '[{"kind": "google_trends", "weight": 1},
              {"kind": "wikipedia", "project": "id.wikipedia", "limit": 40, "weight": 0.6}]',
  min_score = 0.35
where id = 'sains-singkat' and sources = '[{"kind": "google_trends", "weight": 1}]'::jsonb;
