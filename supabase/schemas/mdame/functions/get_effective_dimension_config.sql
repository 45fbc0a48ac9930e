-- A dimension's configuration as its next run would start it: the contract overlaid with the
-- adaptations in force (mdame.dimension_config); null for an unknown dimension.

create or replace function mdame.get_effective_dimension_config(p_dimension_id text)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select mdame.dimension_config(d) from mdame.dimensions d where d.id = p_dimension_id;
$$;
