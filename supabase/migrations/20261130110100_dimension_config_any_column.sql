-- create_dimension and update_dimension over every configuration column of mdame.dimensions, so a
-- column a later migration adds to the configuration (with its default) is created and updated
-- without redefining them again. The configuration is every column but the row's identity and
-- bookkeeping (id on update, active, created_at, updated_at). jsonb_populate_record converts each
-- value to its column's type; a key that is not a column is refused.

create or replace function mdame.dimension_config_columns()
returns text[]
language sql
stable
set search_path = ''
as $$
  select coalesce(array_agg(a.attname::text order by a.attnum), '{}')
    from pg_catalog.pg_attribute a
   where a.attrelid = 'mdame.dimensions'::regclass and a.attnum > 0 and not a.attisdropped
     and a.attname not in ('id', 'active', 'created_at', 'updated_at');
$$;

create or replace function mdame.create_dimension(p_config jsonb)
returns mdame.dimensions
language plpgsql
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

-- Replaces the given settings of a dimension's configuration (p_config is usually the whole merged
-- configuration). The id and whether it is active are not part of it. A call that changes nothing
-- leaves the row as it was.
create or replace function mdame.update_dimension(p_id text, p_config jsonb)
returns mdame.dimensions
language plpgsql
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

select mdame.restrict_function_privileges();
