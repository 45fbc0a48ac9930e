-- A routing is valid when each task it names has a non-empty array of routes.

create or replace function mdame.llm_routing_is_valid(p_llm jsonb)
returns boolean
language sql
immutable security definer
set search_path = ''
as $$
  select jsonb_typeof(p_llm) = 'object'
     and not exists (
       select 1 from jsonb_each(p_llm) e
        where e.key not in ('script', 'critic', 'safety', 'plan')
           or case when jsonb_typeof(e.value) = 'array' then jsonb_array_length(e.value) = 0 else true end)
$$;
