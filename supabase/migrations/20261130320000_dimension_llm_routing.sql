-- Which LLM answers which task of a dimension: per task (script, critic, safety, plan) an ordered
-- list of {provider, model}; the pipeline's router tries them in order when one is unavailable.
-- The shape is checked by its Zod contract (LlmRouting in shared/contracts/llm.ts) before it gets
-- here; the table only insists on an object whose keys are known tasks, each a non-empty array.
-- An empty object (the default) runs every task on Gemini's default model.

-- A routing is valid when each task it names has a non-empty array of routes.
create or replace function mdame.llm_routing_is_valid(p_llm jsonb)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select jsonb_typeof(p_llm) = 'object'
     and not exists (
       select 1 from jsonb_each(p_llm) e
        where e.key not in ('script', 'critic', 'safety', 'plan')
           or case when jsonb_typeof(e.value) = 'array' then jsonb_array_length(e.value) = 0 else true end)
$$;

alter table mdame.dimensions
  add column llm jsonb not null default '{}'::jsonb,
  add constraint dimensions_llm_check check (mdame.llm_routing_is_valid(llm));

select mdame.restrict_function_privileges();
