create or replace function mdame.create_dimension(p_config jsonb)
returns mdame.dimensions
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimensions;
  v_columns text[];
  v_unknown text[];
  v_list text;
begin
  if p_config is null or jsonb_typeof(p_config) <> 'object' or coalesce(p_config->>'id', '') = '' then
    raise exception 'a dimension configuration needs an id' using errcode = '22023';
  end if;
  v_columns := mdame.dimension_config_columns();
  select array_agg(k order by k) into v_unknown
    from jsonb_object_keys(p_config - 'id' - 'active' - 'created_at' - 'updated_at') as k
   where k <> all (v_columns);
  if v_unknown is not null then
    raise exception 'unknown dimension settings: %', array_to_string(v_unknown, ', ') using errcode = '22023';
  end if;
  if jsonb_typeof(p_config->'publishing'->'time_zone') = 'string' then
    perform mdame.assert_known_time_zone(p_config->'publishing'->>'time_zone');
  end if;
  -- Only the settings given are written; the others take their column's default.
  select string_agg(format('%I', k), ', ') into v_list
    from jsonb_object_keys(p_config - 'active' - 'created_at' - 'updated_at') as k;
  -- The insert is the lock: a concurrent create of the same id waits on the unique index and then
  -- finds the row taken.
  execute format(
    'insert into mdame.dimensions (%1$s) select %1$s from jsonb_populate_record(null::mdame.dimensions, $1)
     on conflict (id) do nothing returning *', v_list)
    using p_config into v_row;
  if v_row.id is null then
    raise exception 'dimension % already exists (change it with `mdame dimension set`)', p_config->>'id' using errcode = 'MDS01';
  end if;
  return v_row;
end;
$$;
