create or replace function mdame.get_run_dimension_config(p_run_id uuid, p_dimension_id text)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select config from mdame.run_dimensions where run_id = p_run_id and dimension_id = p_dimension_id;
$$;
