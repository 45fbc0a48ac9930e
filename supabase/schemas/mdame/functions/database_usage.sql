-- The database's size and its p_limit largest tables (with their indexes and TOAST; pgmq's queue
-- and archive tables included), for `mdame storage usage` and the doctor. Also the deletion
-- outbox's backlog, and the Storage folders the engine writes (voice tracks, scene clips, renders,
-- each dimension's music library and weekly report charts) for a listing of Storage's sizes.

create or replace function mdame.database_usage(p_limit integer default 15)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select jsonb_build_object(
    'database_bytes', pg_database_size(current_database()),
    'pending_storage_deletions', (select count(*) from mdame.storage_deletions),
    'storage_prefixes', to_jsonb(array['renders', 'voice', 'scenes']
      || coalesce((select array_agg(distinct d.music->>'library' order by d.music->>'library') from mdame.dimensions d where d.music->>'library' is not null), array[]::text[])
      || coalesce((select array_agg('reports/weekly/' || d.id order by d.id) from mdame.dimensions d), array[]::text[])),
    'tables', coalesce((
      select jsonb_agg(jsonb_build_object('name', t.name, 'total_bytes', t.total_bytes, 'index_bytes', t.index_bytes) order by t.total_bytes desc, t.name)
        from (select n.nspname || '.' || c.relname as name, pg_total_relation_size(c.oid) as total_bytes, pg_indexes_size(c.oid) as index_bytes
                from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
               where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_toast'
               order by pg_total_relation_size(c.oid) desc, 1
               limit greatest(1, least(coalesce(p_limit, 15), 200))) t), '[]'::jsonb));
$$;
