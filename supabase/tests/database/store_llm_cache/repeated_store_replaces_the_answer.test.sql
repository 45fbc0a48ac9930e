begin;
select plan(3);

select is(mdame.get_llm_cache(repeat('a', 64)), null, 'an unknown key has no answer');
select mdame.store_llm_cache(repeat('a', 64), 'model-a', '{"answer": 1}');
select mdame.store_llm_cache(repeat('a', 64), 'model-a', '{"answer": 2}');
select is(mdame.get_llm_cache(repeat('a', 64)), '{"answer": 2}'::jsonb, 'the latest validated answer is the one kept');
select is((select count(*) from mdame.llm_cache where cache_key = repeat('a', 64)), 1::bigint, 'under one row');

select * from finish();
rollback;
