begin;
\ir ../_fixtures.psql
select plan(4);

select is((select music from mdame.dimensions where id = 'tech-explained'), null, 'seeded dimensions have no bed');
select is((mdame.update_dimension('tech-explained', '{"music": {"library": "music/upbeat", "gain_db": -10, "duck_db": 12, "fade_s": 2}}'::jsonb)).music,
          '{"library": "music/upbeat", "gain_db": -10, "duck_db": 12, "fade_s": 2}'::jsonb, 'a config naming music sets the bed');
select is((mdame.update_dimension('tech-explained', '{"daily_limit": 2}'::jsonb)).music,
          '{"library": "music/upbeat", "gain_db": -10, "duck_db": 12, "fade_s": 2}'::jsonb, 'a config leaving music out keeps it');
select is((mdame.update_dimension('tech-explained', '{"music": null}'::jsonb)).music, null, 'music null removes the bed');

select * from finish();
rollback;
