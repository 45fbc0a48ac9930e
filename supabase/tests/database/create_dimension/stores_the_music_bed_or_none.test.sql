begin;
\ir ../_fixtures.psql
select plan(4);

create temp table with_bed as select * from mdame.create_dimension('{"id": "pgtap-bed", "display_name": "Bed", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}, "music": {"library": "music/calm", "gain_db": -12, "duck_db": 10, "fade_s": 1.5}}'::jsonb);
select is((select music from with_bed), '{"library": "music/calm", "gain_db": -12, "duck_db": 10, "fade_s": 1.5}'::jsonb, 'the bed is stored as given');

create temp table no_bed as select * from mdame.create_dimension('{"id": "pgtap-nobed", "display_name": "No bed", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}, "music": null}'::jsonb);
select is((select music from no_bed), null, 'JSON null stores no bed');

select throws_ok($$select mdame.create_dimension('{"id": "pgtap-loud", "display_name": "Loud", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift"}, "music": {"library": "music/calm", "gain_db": 6, "duck_db": 10, "fade_s": 1}}'::jsonb)$$,
                 '23514', null, 'a bed louder than the voice is refused by the table');
select throws_ok($$select mdame.create_dimension('{"id": "pgtap-path", "display_name": "Path", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift"}, "music": {"library": "../secrets", "gain_db": "-10", "duck_db": 10, "fade_s": 1}}'::jsonb)$$,
                 '23514', null, 'a library that is not a storage prefix, or a gain that is not a number, is refused');

select * from finish();
rollback;
