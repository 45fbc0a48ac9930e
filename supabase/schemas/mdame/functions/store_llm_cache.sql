-- A repeated store replaces the answer: the caller only stores one it has validated, and a cached
-- answer that no longer passes its contract is what it replaces.

create or replace function mdame.store_llm_cache(p_cache_key text, p_model text, p_response jsonb)
returns void
language sql
security definer
set search_path = ''
as $$
  insert into mdame.llm_cache (cache_key, model, response) values (p_cache_key, p_model, p_response)
  on conflict (cache_key) do update set response = excluded.response, model = excluded.model, created_at = now();
$$;
