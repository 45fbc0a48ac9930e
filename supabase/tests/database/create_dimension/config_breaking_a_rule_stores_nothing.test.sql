begin;
\ir ../_fixtures.psql
select plan(3);

select throws_ok($$select mdame.create_dimension('{"id": "bad-limit", "display_name": "B", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {}, "daily_limit": 99}'::jsonb)$$,
                 '23514', null, 'a daily limit past the table''s bound is refused');
select throws_ok($$select mdame.create_dimension('{"display_name": "no id"}'::jsonb)$$, '22023', null, 'a configuration without an id is refused');
select is((select count(*)::int from mdame.dimensions where id = 'bad-limit'), 0, 'nothing is stored');

select * from finish();
rollback;
