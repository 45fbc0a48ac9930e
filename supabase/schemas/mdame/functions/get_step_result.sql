-- The stored result of a step that already completed, or null.

create or replace function mdame.get_step_result(p_step_token text)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select result from mdame.step_results where step_token = p_step_token;
$$;
