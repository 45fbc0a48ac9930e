begin;
\ir ../_fixtures.psql
select plan(2);

select throws_ok($$select mdame.create_dimension('{"id": "tech-explained", "display_name": "Other", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift"}}'::jsonb)$$,
                 'MDS01', null, 'creating a dimension whose id is taken is a conflict');
select is((select display_name from mdame.dimensions where id = 'tech-explained'), 'Tech Explained', 'the stored dimension is unchanged');

select * from finish();
rollback;
