create or replace function mdame.store_step_result(p_step_token text, p_result jsonb)
returns void
language plpgsql
set search_path = ''
as $$
begin
  insert into mdame.step_results (step_token, result) values (p_step_token, p_result) on conflict (step_token) do nothing;
end;
$$;

comment on function mdame.store_step_result(text,jsonb) is 'internal: step results are stored by the RPC that completes the step';
