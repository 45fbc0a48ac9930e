begin;
\ir ../_fixtures.psql
select plan(6);

select is((mdame.create_dimension('{"id": "sim-default", "display_name": "S", "language": "en", "tts_voice": "en-US-AriaNeural",
  "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift"}}')).similarity,
  '{"threshold": 0.5, "compare_last": 60, "max_regenerations": 2}'::jsonb, 'a dimension without a similarity section gets the documented defaults');
select is((mdame.update_dimension('sim-default', '{"similarity": {"threshold": 0.35, "compare_last": 120, "max_regenerations": 0}}')).similarity,
  '{"threshold": 0.35, "compare_last": 120, "max_regenerations": 0}'::jsonb, 'update_dimension changes the section');
select throws_ok($$ update mdame.dimensions set similarity = '{"threshold": 1.5, "compare_last": 60, "max_regenerations": 2}' where id = 'sim-default' $$,
  '23514', null, 'a threshold over 1 is refused by the table');
select throws_ok($$ update mdame.dimensions set similarity = '{"threshold": "high", "compare_last": 60, "max_regenerations": 2}' where id = 'sim-default' $$,
  '23514', null, 'a threshold that is not a number is refused');
select throws_ok($$ update mdame.dimensions set similarity = '{"threshold": 0.5, "compare_last": 501, "max_regenerations": 2}' where id = 'sim-default' $$,
  '23514', null, 'compare_last over 500 is refused');
select throws_ok($$ update mdame.dimensions set similarity = '{"threshold": 0.5, "compare_last": 60, "max_regenerations": 4, "extra": 1}' where id = 'sim-default' $$,
  '23514', null, 'more rewrites than 3, or an unknown field, is refused');

select * from finish();
rollback;
