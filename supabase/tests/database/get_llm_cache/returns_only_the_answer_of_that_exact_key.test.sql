begin;
select plan(4);

insert into mdame.llm_cache (cache_key, model, response)
values (repeat('b', 64), 'model-b', '{"script": {"title": "Cached", "hashtags": ["#one", "#two"]}}');

select is(mdame.get_llm_cache(repeat('b', 64)), '{"script": {"title": "Cached", "hashtags": ["#one", "#two"]}}'::jsonb,
          'a cached answer comes back whole, nested values included');
select is(mdame.get_llm_cache(repeat('b', 63) || 'c'), null, 'a key one character off has no answer');
select is(mdame.get_llm_cache(upper(repeat('b', 64))), null, 'keys match exactly: an upper-case key is another key');
select is(mdame.get_llm_cache(null), null, 'no key, no answer (and no error)');

select * from finish();
rollback;
