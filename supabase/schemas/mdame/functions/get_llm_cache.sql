create or replace function mdame.get_llm_cache(p_cache_key text)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select response from mdame.llm_cache where cache_key = p_cache_key;
$$;
