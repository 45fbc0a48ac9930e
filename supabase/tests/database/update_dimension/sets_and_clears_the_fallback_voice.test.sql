begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.update_dimension('tech-explained', '{"tts_fallback_voice": "Charon"}'::jsonb);
select is((select tts_fallback_voice from mdame.dimensions where id = 'tech-explained'), 'Charon', 'a named voice is stored');
select mdame.update_dimension('tech-explained', '{"display_name": "Tech Explained"}'::jsonb);
select is((select tts_fallback_voice from mdame.dimensions where id = 'tech-explained'), 'Charon', 'a configuration without the field keeps it');
select mdame.update_dimension('tech-explained', '{"tts_fallback_voice": null}'::jsonb);
select is((select tts_fallback_voice from mdame.dimensions where id = 'tech-explained'), null, 'null goes back to the language default');

select * from finish();
rollback;
