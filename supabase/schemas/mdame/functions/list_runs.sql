create or replace function mdame.list_runs(p_limit integer)
returns setof mdame.pipeline_runs
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.pipeline_runs order by created_at desc limit least(greatest(coalesce(p_limit, 0), 0), 500);
$$;
