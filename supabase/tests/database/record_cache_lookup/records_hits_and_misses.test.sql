begin;
\ir ../_fixtures.psql
select plan(5);

select mdame.record_cache_lookup('llm', 'tech-explained', true);
select mdame.record_cache_lookup('tts', 'tech-explained', false, null, null, 'voice');
select is((select count(*)::int from mdame.events where kind = 'cache_lookup'), 2, 'each lookup is an event');
select is((select detail from mdame.events where kind = 'cache_lookup' and stage is null),
  '{"cache": "llm", "dimension_id": "tech-explained", "hit": true}'::jsonb, 'naming the cache, the dimension and whether it hit');
select is((select stage from mdame.events where kind = 'cache_lookup' and detail->>'cache' = 'tts'), 'voice', 'at the stage given');
select throws_ok($$select mdame.record_cache_lookup('scenes', 'tech-explained', true)$$, '22023', null, 'an unknown cache is refused');
select throws_ok($$select mdame.record_cache_lookup('llm', 'tech-explained', null)$$, '22023', null, 'a lookup is a hit or a miss');

select * from finish();
rollback;
