-- step:<owner>:<index>:<sha256 of the canonical JSON params> (jsonb text is canonical: keys sorted, no duplicates).

create or replace function mdame.step_token(p_owner text, p_step_index integer, p_params jsonb)
returns text
language plpgsql
immutable security definer
set search_path = ''
as $$
begin
  return 'step:' || p_owner || ':' || p_step_index || ':' || encode(sha256(convert_to(p_params::text, 'UTF8')), 'hex');
end;
$$;
