-- A dimension's configuration as a run uses it: every column but its state (active) and bookkeeping
-- times, overlaid with the adaptive engine's moves in force (mdame.apply_adaptations).

create or replace function mdame.dimension_config(p_dimension mdame.dimensions)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select mdame.apply_adaptations(to_jsonb(p_dimension) - 'active' - 'created_at' - 'updated_at', p_dimension.id);
$$;
