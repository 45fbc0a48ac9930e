create or replace function mdame.get_llm_cache(p_cache_key text)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select response from mdame.llm_cache where cache_key = p_cache_key;
$$;

revoke all on function mdame.get_llm_cache(text) from public, anon, authenticated;
grant execute on function mdame.get_llm_cache(text) to mdame_engine;
grant execute on function mdame.get_llm_cache(text) to service_role;
