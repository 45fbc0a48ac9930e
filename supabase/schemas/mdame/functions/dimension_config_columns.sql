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

comment on function mdame.dimension_config_columns() is 'internal: column list of the dimension configuration';
