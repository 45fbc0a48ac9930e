-- The engine archives stage tasks with static statements on pgmq.q_stage_tasks / a_stage_tasks
-- (20261129120000_transition_throughput.sql says why). pgmq 1.5 adds a `headers` column to both
-- tables, which a column list written for pgmq 1.4 leaves behind: a task sent with headers lost them
-- in the archive. pgmq 1.4 has no such column, and `alter extension pgmq update` to 1.5 adds it to
-- existing queues, so the layout is read from the catalog on every call (a cached lookup) rather than
-- fixed when this migration runs. PL/pgSQL plans a static statement on its first execution, so the
-- branch naming `headers` is never planned where the column does not exist.

-- Whether pgmq's tables for a queue carry pgmq 1.5's `headers` column (the archive's is checked: a
-- queue's two tables come from the same pgmq version).
create function mdame.pgmq_queue_has_headers(p_queue text)
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

-- Moves a stage task to the archive, as pgmq.archive('stage_tasks', id) does, every column kept;
-- false when it is not queued.
create or replace function mdame.archive_stage_task(p_msg_id bigint)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  if mdame.pgmq_queue_has_headers('stage_tasks') then
    with moved as (
      delete from pgmq.q_stage_tasks where msg_id = p_msg_id
      returning msg_id, read_ct, enqueued_at, vt, message, headers
    )
    insert into pgmq.a_stage_tasks (msg_id, read_ct, enqueued_at, vt, message, headers)
    select msg_id, read_ct, enqueued_at, vt, message, headers from moved;
  else
    with moved as (
      delete from pgmq.q_stage_tasks where msg_id = p_msg_id
      returning msg_id, read_ct, enqueued_at, vt, message
    )
    insert into pgmq.a_stage_tasks (msg_id, read_ct, enqueued_at, vt, message)
    select msg_id, read_ct, enqueued_at, vt, message from moved;
  end if;
  return found;
end;
$$;

select mdame.restrict_function_privileges();
