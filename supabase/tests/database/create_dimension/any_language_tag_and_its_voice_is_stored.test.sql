begin;
\ir ../_fixtures.psql
select plan(5);

select lives_ok($$select mdame.create_dimension('{"id": "nauka", "display_name": "Nauka", "language": "ru-RU", "tts_voice": "ru-RU-SvetlanaNeural", "trend_geo": "RU", "style": {}}'::jsonb)$$,
                'a Russian dimension with a Russian voice is stored');
select lives_ok($$select mdame.create_dimension('{"id": "kagaku", "display_name": "Kagaku", "language": "ja", "tts_voice": "ja-JP-NanamiNeural", "trend_geo": "JP", "style": {}}'::jsonb)$$,
                'a bare language subtag is a language too');
select throws_ok($$select mdame.create_dimension('{"id": "badtag", "display_name": "B", "language": "english", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {}}'::jsonb)$$,
                 '23514', null, 'a language that is not a canonical BCP-47 tag is refused');
select throws_ok($$select mdame.create_dimension('{"id": "badvoice", "display_name": "B", "language": "ru-RU", "tts_voice": "en-US-AriaNeural", "trend_geo": "RU", "style": {}}'::jsonb)$$,
                 '23514', null, 'a voice of another language is refused');
select is((select count(*)::int from mdame.dimensions where id in ('badtag', 'badvoice')), 0, 'nothing is stored for the refused ones');

select * from finish();
rollback;
