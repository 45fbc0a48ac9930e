-- Replaces the given settings of a dimension's configuration (p_config is usually the whole merged
-- configuration). The id and whether it is active are not part of it. A call that changes nothing
-- leaves the row as it was.

create or replace function mdame.update_dimension(p_id text, p_config jsonb)
returns mdame.dimensions
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_old mdame.dimensions;
  v_row mdame.dimensions;
  v_columns text[];
  v_unknown text[];
  v_list text;
begin
  select * into v_old from mdame.dimensions where id = p_id for update;
  if v_old.id is null then
    raise exception 'no dimension %', p_id using errcode = 'MDN01';
  end if;
  if p_config is null or jsonb_typeof(p_config) <> 'object' then
    raise exception 'a dimension configuration is a JSON object' using errcode = '22023';
  end if;
  if p_config ? 'id' and p_config->>'id' <> p_id then
    raise exception 'a dimension''s id cannot change (% -> %)', p_id, p_config->>'id' using errcode = 'MDS01';
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
  select string_agg(format('%I', c), ', ') into v_list from unnest(v_columns) as c;
  -- jsonb_populate_record over the current row: settings absent from p_config keep their value; a
  -- JSON null clears a setting that may be null (and is refused by a column that may not).
  execute format(
    'update mdame.dimensions d set (%1$s) = (select %1$s from jsonb_populate_record($1, $2)) where d.id = $3 returning *', v_list)
    using v_old, p_config, p_id into v_row;
  -- updated_at moves only when something did, so a repeated `set` reads as no change.
  if (to_jsonb(v_row) - 'updated_at') is distinct from (to_jsonb(v_old) - 'updated_at') then
    update mdame.dimensions set updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;
