-- pgmq-compatible queues for servers without the pgmq extension (DESIGN.md, "Local stack").
--
-- Installed by the local stack's db reset before the migrations, only where
-- `pg_available_extensions` has no pgmq. Same schema, tables, types, function names, signatures and
-- semantics as pgmq 1.4 (non-partitioned queues), so SQL and clients written against pgmq run
-- unchanged; tests/integration/pgmq-conformance.test.ts holds both implementations to them.
--
-- Per queue <name>:
--   pgmq.q_<name>  live messages; a message is visible when vt <= clock_timestamp()
--   pgmq.a_<name>  archived messages (archived_at added)
-- Re-running this file is harmless.

create schema if not exists pgmq;

create table if not exists pgmq.meta (
  queue_name varchar unique not null,
  is_partitioned boolean not null default false,
  is_unlogged boolean not null default false,
  created_at timestamptz not null default now()
);

do $$
begin
  if to_regtype('pgmq.message_record') is null then
    create type pgmq.message_record as (
      msg_id bigint,
      read_ct integer,
      enqueued_at timestamptz,
      vt timestamptz,
      message jsonb
    );
  end if;
  if to_regtype('pgmq.queue_record') is null then
    create type pgmq.queue_record as (
      queue_name varchar,
      is_partitioned boolean,
      is_unlogged boolean,
      created_at timestamptz
    );
  end if;
  if to_regtype('pgmq.metrics_result') is null then
    create type pgmq.metrics_result as (
      queue_name text,
      queue_length bigint,
      newest_msg_age_sec integer,
      oldest_msg_age_sec integer,
      total_messages bigint,
      scrape_time timestamptz
    );
  end if;
end
$$;

-- Table name for a queue: '<prefix>_<queue_name>'. Queue names are lowercase SQL identifiers of at
-- most 47 characters (pgmq's limit, so every derived table and index name fits in 63 bytes).
-- Anything else is refused before it can reach dynamic SQL.
create or replace function pgmq.format_table_name(queue_name text, prefix text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
begin
  if queue_name is null or queue_name !~ '^[a-z_][a-z0-9_]*$' then
    raise exception 'invalid queue name %: use lowercase letters, digits and underscores, starting with a letter or underscore', quote_literal(coalesce(queue_name, '<null>'))
      using errcode = '22023';
  end if;
  if length(queue_name) >= 48 then
    raise exception 'queue name is too long, maximum length is 47 characters'
      using errcode = '22023';
  end if;
  return prefix || '_' || queue_name;
end
$$;

create or replace function pgmq._create_queue(queue_name text, unlogged boolean)
returns void
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  atable text := pgmq.format_table_name(queue_name, 'a');
  kind text := case when unlogged then 'unlogged' else '' end;
begin
  -- Two sessions creating the same queue at once would race on the catalog; take turns.
  perform pg_advisory_xact_lock(hashtext('pgmq.create:' || queue_name));
  execute format(
    'create %s table if not exists pgmq.%I (
       msg_id bigint primary key generated always as identity,
       read_ct integer not null default 0,
       enqueued_at timestamptz not null default now(),
       vt timestamptz not null,
       message jsonb
     )', kind, qtable);
  execute format(
    'create table if not exists pgmq.%I (
       msg_id bigint primary key,
       read_ct integer not null default 0,
       enqueued_at timestamptz not null default now(),
       archived_at timestamptz not null default now(),
       vt timestamptz not null,
       message jsonb
     )', atable);
  execute format('create index if not exists %I on pgmq.%I (vt asc)', qtable || '_vt_idx', qtable);
  execute format('create index if not exists %I on pgmq.%I (archived_at)', 'archived_at_idx_' || queue_name, atable);
  insert into pgmq.meta (queue_name, is_partitioned, is_unlogged)
  values (queue_name, false, unlogged)
  on conflict on constraint meta_queue_name_key do nothing;
end
$$;

-- create(queue_name): creates the queue and its archive; an existing queue is left as it is.
create or replace function pgmq."create"(queue_name text)
returns void
language sql
set search_path = ''
as $$ select pgmq._create_queue(queue_name, false) $$;

create or replace function pgmq.create_unlogged(queue_name text)
returns void
language sql
set search_path = ''
as $$ select pgmq._create_queue(queue_name, true) $$;

-- drop_queue(queue_name): drops the queue, its archive and its metadata; false when it did not exist.
create or replace function pgmq.drop_queue(queue_name text)
returns boolean
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  atable text := pgmq.format_table_name(queue_name, 'a');
begin
  if not exists (select 1 from pgmq.meta m where m.queue_name = drop_queue.queue_name) then
    raise notice 'pgmq queue % does not exist', queue_name;
    return false;
  end if;
  execute format('drop table if exists pgmq.%I', qtable);
  execute format('drop table if exists pgmq.%I', atable);
  delete from pgmq.meta m where m.queue_name = drop_queue.queue_name;
  return true;
end
$$;

-- send(queue_name, msg, delay): enqueues one message, visible after `delay` seconds; returns its id.
create or replace function pgmq.send(queue_name text, msg jsonb, delay integer default 0)
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'insert into pgmq.%I (vt, message)
     values (clock_timestamp() + make_interval(secs => $2), $1)
     returning msg_id', pgmq.format_table_name(queue_name, 'q'))
    using msg, delay;
end
$$;

-- send_batch(queue_name, msgs, delay): enqueues every message in array order; returns their ids in that order.
create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer default 0)
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with inserted as (
       insert into pgmq.%I (vt, message)
       select clock_timestamp() + make_interval(secs => $2), m.message
       from unnest($1) with ordinality as m (message, position)
       order by m.position
       returning msg_id
     )
     select msg_id from inserted order by msg_id', pgmq.format_table_name(queue_name, 'q'))
    using msgs, delay;
end
$$;

-- read(queue_name, vt, qty, conditional): takes up to `qty` visible messages (oldest first), hides
-- them for `vt` seconds and counts the read. Rows another session is taking are skipped, so
-- concurrent readers never receive the same message. `conditional` filters by jsonb containment.
create or replace function pgmq.read(queue_name text, vt integer, qty integer, conditional jsonb default '{}')
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
begin
  return query execute format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= clock_timestamp() and ($3 = ''{}''::jsonb or message @> $3)
       order by msg_id
       limit $1
       for update skip locked
     ), updated as (
       update pgmq.%1$I q
       set vt = clock_timestamp() + make_interval(secs => $2), read_ct = q.read_ct + 1
       from picked
       where q.msg_id = picked.msg_id
       returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message
     )
     select msg_id, read_ct, enqueued_at, vt, message from updated order by msg_id', qtable)
    using qty, vt, coalesce(conditional, '{}'::jsonb);
end
$$;

-- read_with_poll: read(), waiting up to max_poll_seconds for a message to become visible.
create or replace function pgmq.read_with_poll(
  queue_name text,
  vt integer,
  qty integer,
  max_poll_seconds integer default 5,
  poll_interval_ms integer default 100,
  conditional jsonb default '{}'
)
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
declare
  stop_at timestamptz := clock_timestamp() + make_interval(secs => max_poll_seconds);
  got integer;
begin
  loop
    return query select * from pgmq.read(queue_name, vt, qty, conditional);
    get diagnostics got = row_count;
    if got > 0 or clock_timestamp() >= stop_at then
      return;
    end if;
    perform pg_sleep(poll_interval_ms / 1000.0);
  end loop;
end
$$;

-- pop(queue_name, qty): takes and deletes up to `qty` visible messages (at-most-once delivery).
create or replace function pgmq.pop(queue_name text, qty integer default 1)
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
begin
  return query execute format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= clock_timestamp()
       order by msg_id
       limit $1
       for update skip locked
     ), deleted as (
       delete from pgmq.%1$I q using picked
       where q.msg_id = picked.msg_id
       returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message
     )
     select msg_id, read_ct, enqueued_at, vt, message from deleted order by msg_id', qtable)
    using qty;
end
$$;

-- set_vt(queue_name, msg_id, vt): makes the message visible `vt` seconds from now (extends or
-- shortens a lease); returns the updated message, or nothing when it does not exist.
create or replace function pgmq.set_vt(queue_name text, msg_id bigint, vt integer)
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'update pgmq.%I
     set vt = clock_timestamp() + make_interval(secs => $2)
     where msg_id = $1
     returning msg_id, read_ct, enqueued_at, vt, message', pgmq.format_table_name(queue_name, 'q'))
    using msg_id, vt;
end
$$;

-- archive(queue_name, msg_id): moves the message to a_<name>; false when it is not in the queue.
create or replace function pgmq.archive(queue_name text, msg_id bigint)
returns boolean
language plpgsql
set search_path = ''
as $$
declare
  moved bigint;
begin
  execute format(
    'with moved as (
       delete from pgmq.%I where msg_id = $1
       returning msg_id, read_ct, enqueued_at, vt, message
     )
     insert into pgmq.%I (msg_id, read_ct, enqueued_at, vt, message)
     select msg_id, read_ct, enqueued_at, vt, message from moved
     returning msg_id', pgmq.format_table_name(queue_name, 'q'), pgmq.format_table_name(queue_name, 'a'))
    into moved
    using msg_id;
  return moved is not null;
end
$$;

-- archive(queue_name, msg_ids): moves every listed message that is in the queue; returns their ids.
create or replace function pgmq.archive(queue_name text, msg_ids bigint[])
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with moved as (
       delete from pgmq.%I where msg_id = any($1)
       returning msg_id, read_ct, enqueued_at, vt, message
     ), inserted as (
       insert into pgmq.%I (msg_id, read_ct, enqueued_at, vt, message)
       select msg_id, read_ct, enqueued_at, vt, message from moved
       returning msg_id
     )
     select msg_id from inserted order by msg_id', pgmq.format_table_name(queue_name, 'q'), pgmq.format_table_name(queue_name, 'a'))
    using msg_ids;
end
$$;

-- delete(queue_name, msg_id): removes the message for good; false when it is not in the queue.
create or replace function pgmq."delete"(queue_name text, msg_id bigint)
returns boolean
language plpgsql
set search_path = ''
as $$
declare
  removed bigint;
begin
  execute format('delete from pgmq.%I where msg_id = $1 returning msg_id', pgmq.format_table_name(queue_name, 'q'))
    into removed
    using msg_id;
  return removed is not null;
end
$$;

-- delete(queue_name, msg_ids): removes every listed message that is in the queue; returns their ids.
create or replace function pgmq."delete"(queue_name text, msg_ids bigint[])
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with removed as (delete from pgmq.%I where msg_id = any($1) returning msg_id)
     select msg_id from removed order by msg_id', pgmq.format_table_name(queue_name, 'q'))
    using msg_ids;
end
$$;

-- purge_queue(queue_name): deletes every message in the queue (not the archive); returns how many.
create or replace function pgmq.purge_queue(queue_name text)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  removed bigint;
begin
  execute format('with removed as (delete from pgmq.%I returning 1) select count(*) from removed', pgmq.format_table_name(queue_name, 'q'))
    into removed;
  return removed;
end
$$;

-- metrics(queue_name): queue length, ages of the newest and oldest message (null when empty), and
-- the number of messages ever sent (from the id sequence, so deletions do not lower it).
create or replace function pgmq.metrics(queue_name text)
returns pgmq.metrics_result
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  result pgmq.metrics_result;
begin
  execute format(
    'select $1::text,
            count(*)::bigint,
            extract(epoch from (now() - max(enqueued_at)))::integer,
            extract(epoch from (now() - min(enqueued_at)))::integer,
            coalesce(pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence($2, ''msg_id'')::regclass), 0),
            now()
     from pgmq.%I', qtable)
    into result
    using queue_name, format('pgmq.%I', qtable);
  return result;
end
$$;

create or replace function pgmq.metrics_all()
returns setof pgmq.metrics_result
language plpgsql
set search_path = ''
as $$
declare
  name text;
begin
  for name in select m.queue_name from pgmq.meta m order by m.queue_name loop
    return next pgmq.metrics(name);
  end loop;
end
$$;

-- list_queues(): every queue with its creation time.
create or replace function pgmq.list_queues()
returns setof pgmq.queue_record
language sql
stable
set search_path = ''
as $$
  select m.queue_name, m.is_partitioned, m.is_unlogged, m.created_at from pgmq.meta m order by m.queue_name
$$;
