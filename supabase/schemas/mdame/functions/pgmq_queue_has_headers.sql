-- Whether pgmq's tables for a queue carry pgmq 1.5's `headers` column (the archive's is checked: a
-- queue's two tables come from the same pgmq version).

create or replace function mdame.pgmq_queue_has_headers(p_queue text)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
begin
  return exists (
    select 1 from pg_catalog.pg_attribute a
     where a.attrelid = to_regclass('pgmq.' || quote_ident('a_' || p_queue))
       and a.attname = 'headers' and a.attnum > 0 and not a.attisdropped);
end;
$$;

comment on function mdame.pgmq_queue_has_headers(text) is 'internal: pgmq layout probe of archive_stage_task';
