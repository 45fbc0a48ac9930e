begin;
\ir ../_fixtures.psql
select plan(4);

select is((mdame.create_dimension('{"id": "vis-default", "display_name": "V", "language": "en", "tts_voice": "en-US-AriaNeural",
  "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift"}}')).visuals,
  '{"backends": ["procedural"], "pexels_blocklist": []}'::jsonb, 'a dimension without visuals gets procedural only');
select is((mdame.create_dimension('{"id": "vis-set", "display_name": "V", "language": "en", "tts_voice": "en-US-AriaNeural",
  "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift"},
  "visuals": {"backends": ["gemini-image", "procedural"], "pexels_blocklist": []}}')).visuals->'backends',
  '["gemini-image", "procedural"]'::jsonb, 'the given backend order is stored');
select throws_ok($$select mdame.create_dimension('{"id": "vis-bad", "display_name": "V", "language": "en", "tts_voice": "en-US-AriaNeural",
  "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift"}, "visuals": {"backends": ["pexels"]}}')$$,
  '23514', null, 'a list that does not end with procedural is refused by the table');
select is((mdame.update_dimension('vis-default', '{"visuals": {"backends": ["pexels", "procedural"], "pexels_blocklist": ["casino"]}}')).visuals->'pexels_blocklist',
  '["casino"]'::jsonb, 'update_dimension changes the visuals');

select * from finish();
rollback;
