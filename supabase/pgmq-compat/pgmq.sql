-- pgmq-compatible queues for servers without the pgmq extension (docs/design.md, "Local stack").
--
-- Follows pgmq 1.5.1 (tembo-io/pgmq, pgmq-extension/sql/pgmq.sql at v1.5.1): the same schema,
-- tables (headers included), types, function names, signatures, result columns and semantics, for
-- non-partitioned queues. SQL and clients written against pgmq 1.5.1 run unchanged;
-- tests/integration/pgmq-conformance.test.ts holds this file and the real extension to them.
-- supabase/pgmq-compat/shape-1.4.sql, applied after this file, gives pgmq 1.4.4's layout instead,
-- so the engine is tested on both (docs/reference/pgmq.md says what is covered and what is left out).
--
-- Installed by the local stack's db reset before the migrations, only where
-- `pg_available_extensions` has no pgmq, into a database without schema pgmq.
--
-- Per queue <name>:
--   pgmq.q_<name>  live messages; a message is visible when vt <= clock_timestamp()
--   pgmq.a_<name>  archived messages (archived_at added)
-- Re-running this file on the same database is harmless.

create schema if not exists pgmq;

create table if not exists pgmq.meta (
  queue_name varchar unique not null,
  is_partitioned boolean not null,
  is_unlogged boolean not null,
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
      message jsonb,
      headers jsonb
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
      scrape_time timestamptz,
      queue_visible_length bigint
    );
  end if;
end
$$;

-- '<prefix>_<queue_name>' in lower case, as pgmq names a queue's tables. pgmq refuses these
-- characters in a name; every table name below is also quoted with %I, so no name reaches SQL as code.
create or replace function pgmq.format_table_name(queue_name text, prefix text)
returns text
language plpgsql
set search_path = ''
as $$
begin
  if queue_name ~ '\$|;|--|''' then
    raise exception 'queue name contains invalid characters: $, ;, --, or \''';
  end if;
  return lower(prefix || '_' || queue_name);
end
$$;

-- pgmq's limit: 47 characters, so every derived table and index name fits in 63 bytes.
create or replace function pgmq.validate_queue_name(queue_name text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  if length(queue_name) >= 48 then
    raise exception 'queue name is too long, maximum length is 48 characters';
  end if;
end
$$;

-- The tables, indexes and metadata of one queue; create_non_partitioned and create_unlogged differ
-- only in the live table being unlogged (the archive is always logged, as in pgmq).
create or replace function pgmq._create_queue(queue_name text, unlogged boolean)
returns void
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  atable text := pgmq.format_table_name(queue_name, 'a');
begin
  perform pgmq.validate_queue_name(queue_name);
  -- Two sessions creating the same queue at once would race on the catalog; take turns.
  perform pg_advisory_xact_lock(hashtext('pgmq.create:' || qtable));
  execute format(
    'create %s table if not exists pgmq.%I (
       msg_id bigint primary key generated always as identity,
       read_ct integer default 0 not null,
       enqueued_at timestamptz default now() not null,
       vt timestamptz not null,
       message jsonb,
       headers jsonb
     )', case when unlogged then 'unlogged' else '' end, qtable);
  execute format(
    'create table if not exists pgmq.%I (
       msg_id bigint primary key,
       read_ct integer default 0 not null,
       enqueued_at timestamptz default now() not null,
       archived_at timestamptz default now() not null,
       vt timestamptz not null,
       message jsonb,
       headers jsonb
     )', atable);
  execute format('create index if not exists %I on pgmq.%I (vt asc)', qtable || '_vt_idx', qtable);
  execute format('create index if not exists %I on pgmq.%I (archived_at)', 'archived_at_idx_' || queue_name, atable);
  insert into pgmq.meta (queue_name, is_partitioned, is_unlogged)
  values (queue_name, false, unlogged)
  on conflict do nothing;
end
$$;

-- create_non_partitioned(queue_name): the queue and its archive; an existing queue is left as it is.
create or replace function pgmq.create_non_partitioned(queue_name text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform pgmq._create_queue(queue_name, false);
end
$$;

create or replace function pgmq.create_unlogged(queue_name text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform pgmq._create_queue(queue_name, true);
end
$$;

create or replace function pgmq."create"(queue_name text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform pgmq.create_non_partitioned(queue_name);
end
$$;

-- Partitioned queues need pg_partman: pgmq refuses them where it is not installed, and this file
-- does not implement them where it is.
create or replace function pgmq.create_partitioned(
  queue_name text,
  partition_interval text default '10000',
  retention_interval text default '100000'
)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform pgmq.validate_queue_name(queue_name);
  if not exists (select 1 from pg_catalog.pg_extension where extname = 'pg_partman') then
    raise exception 'pg_partman is required for partitioned queues';
  end if;
  raise exception 'partitioned queues are not provided by the pgmq-compatible SQL; install the pgmq extension'
    using errcode = '0A000';
end
$$;

-- drop_queue(queue_name): drops the queue, its archive and its metadata. pgmq 1.5.1's SQL returns
-- true whether or not the queue existed (outside an extension, as here).
create or replace function pgmq.drop_queue(queue_name text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  execute format('drop table if exists pgmq.%I', pgmq.format_table_name(queue_name, 'q'));
  execute format('drop table if exists pgmq.%I', pgmq.format_table_name(queue_name, 'a'));
  delete from pgmq.meta m where m.queue_name = drop_queue.queue_name;
  return true;
end
$$;

create or replace function pgmq.drop_queue(queue_name text, partitioned boolean)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  raise warning 'drop_queue(queue_name, partitioned) is deprecated and will be removed in PGMQ v2.0. Use drop_queue(queue_name) instead';
  perform pgmq.drop_queue(queue_name);
  return true;
end
$$;

-- Kept for pgmq's API: outside an extension an archive already outlives its queue's membership.
create or replace function pgmq.detach_archive(queue_name text)
returns void
language plpgsql
set search_path = ''
as $$
begin
  perform pgmq.format_table_name(queue_name, 'a');
end
$$;

-- send(queue_name, msg, headers, delay timestamptz): the one that enqueues; the message becomes
-- visible at `delay`. Every other send is this one with defaults: no headers (null), now.
create or replace function pgmq.send(queue_name text, msg jsonb, headers jsonb, delay timestamptz)
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'insert into pgmq.%I (vt, message, headers) values ($2, $1, $3) returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
    using msg, delay, headers;
end
$$;

create or replace function pgmq.send(queue_name text, msg jsonb)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send(queue_name, msg, null::jsonb, clock_timestamp()) $$;

create or replace function pgmq.send(queue_name text, msg jsonb, headers jsonb)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send(queue_name, msg, headers, clock_timestamp()) $$;

-- delay in seconds from now.
create or replace function pgmq.send(queue_name text, msg jsonb, delay integer)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send(queue_name, msg, null::jsonb, clock_timestamp() + make_interval(secs => delay)) $$;

create or replace function pgmq.send(queue_name text, msg jsonb, delay timestamptz)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send(queue_name, msg, null::jsonb, delay) $$;

create or replace function pgmq.send(queue_name text, msg jsonb, headers jsonb, delay integer)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send(queue_name, msg, headers, clock_timestamp() + make_interval(secs => delay)) $$;

-- send_batch(queue_name, msgs, headers, delay timestamptz): one message per element, in array
-- order, headers[i] with msgs[i]; returns the ids in that order. As in pgmq the two arrays are
-- paired up to the longer one (the shorter is padded with nulls).
create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay timestamptz)
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with inserted as (
       insert into pgmq.%I (vt, message, headers)
       select $2, m.message, m.headers
       from unnest($1, coalesce($3, array[]::jsonb[])) with ordinality as m (message, headers, position)
       order by m.position
       returning msg_id
     )
     select msg_id from inserted order by msg_id', pgmq.format_table_name(queue_name, 'q'))
    using msgs, delay, headers;
end
$$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[])
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send_batch(queue_name, msgs, null::jsonb[], clock_timestamp()) $$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[])
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send_batch(queue_name, msgs, headers, clock_timestamp()) $$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send_batch(queue_name, msgs, null::jsonb[], clock_timestamp() + make_interval(secs => delay)) $$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], delay timestamptz)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send_batch(queue_name, msgs, null::jsonb[], delay) $$;

create or replace function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay integer)
returns setof bigint
language sql
set search_path = ''
as $$ select * from pgmq.send_batch(queue_name, msgs, headers, clock_timestamp() + make_interval(secs => delay)) $$;

-- read(queue_name, vt, qty, conditional): takes up to `qty` visible messages (oldest first), hides
-- them for `vt` seconds and counts the read. Rows another session is taking are skipped, so
-- concurrent readers never receive the same message. A `conditional` other than '{}' or null keeps
-- only the messages that contain it (jsonb @>).
create or replace function pgmq.read(queue_name text, vt integer, qty integer, conditional jsonb default '{}')
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= clock_timestamp() and (coalesce($3, ''{}''::jsonb) = ''{}''::jsonb or message @> $3)
       order by msg_id
       limit $1
       for update skip locked
     )
     update pgmq.%1$I m
     set vt = clock_timestamp() + make_interval(secs => $2), read_ct = m.read_ct + 1
     from picked
     where m.msg_id = picked.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers', pgmq.format_table_name(queue_name, 'q'))
    using qty, vt, conditional;
end
$$;

-- read_with_poll: read(), trying again every poll_interval_ms until a message comes or
-- max_poll_seconds pass.
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
begin
  loop
    if clock_timestamp() >= stop_at then
      return;
    end if;
    return query select * from pgmq.read(queue_name, vt, qty, conditional);
    if found then
      return;
    end if;
    perform pg_sleep(poll_interval_ms::numeric / 1000);
  end loop;
end
$$;

-- pop(queue_name): takes and deletes the oldest visible message (at-most-once delivery).
-- `returning *`, as pgmq: the row is the message_record of whatever layout the queue has.
create or replace function pgmq.pop(queue_name text)
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= clock_timestamp()
       order by msg_id
       limit 1
       for update skip locked
     )
     delete from pgmq.%1$I
     where msg_id = (select msg_id from picked)
     returning *', pgmq.format_table_name(queue_name, 'q'));
end
$$;

-- set_vt(queue_name, msg_id, vt): makes the message visible `vt` seconds from now (extends or
-- shortens a lease); returns the updated message, or nothing when it is not in the queue.
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
     returning *', pgmq.format_table_name(queue_name, 'q'))
    using msg_id, vt;
end
$$;

-- archive(queue_name, msg_id): moves the message, headers included, to a_<name>; false when it is
-- not in the queue.
create or replace function pgmq.archive(queue_name text, msg_id bigint)
returns boolean
language plpgsql
set search_path = ''
as $$
declare
  moved bigint;
begin
  execute format(
    'with archived as (
       delete from pgmq.%I where msg_id = $1
       returning msg_id, vt, read_ct, enqueued_at, message, headers
     )
     insert into pgmq.%I (msg_id, vt, read_ct, enqueued_at, message, headers)
     select msg_id, vt, read_ct, enqueued_at, message, headers from archived
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
    'with archived as (
       delete from pgmq.%I where msg_id = any($1)
       returning msg_id, vt, read_ct, enqueued_at, message, headers
     )
     insert into pgmq.%I (msg_id, vt, read_ct, enqueued_at, message, headers)
     select msg_id, vt, read_ct, enqueued_at, message, headers from archived
     returning msg_id', pgmq.format_table_name(queue_name, 'q'), pgmq.format_table_name(queue_name, 'a'))
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
  return query execute format('delete from pgmq.%I where msg_id = any($1) returning msg_id', pgmq.format_table_name(queue_name, 'q'))
    using msg_ids;
end
$$;

-- purge_queue(queue_name): empties the queue (not its archive, not its id sequence); returns how
-- many messages it held. TRUNCATE, as pgmq 1.5: it waits for sessions using the queue.
create or replace function pgmq.purge_queue(queue_name text)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  deleted_count integer;
begin
  execute format('select count(*) from pgmq.%I', qtable) into deleted_count;
  execute format('truncate table pgmq.%I', qtable);
  return deleted_count;
end
$$;

-- metrics(queue_name): queue length, how many of those are visible now, ages of the newest and
-- oldest message (null when empty), and the number of messages ever sent (the id sequence's last
-- value, so deletions do not lower it).
create or replace function pgmq.metrics(queue_name text)
returns pgmq.metrics_result
language plpgsql
set search_path = ''
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  result_row pgmq.metrics_result;
begin
  execute format(
    'with q_summary as (
       select count(*) as queue_length,
              count(case when vt <= now() then 1 end) as queue_visible_length,
              extract(epoch from (now() - max(enqueued_at)))::integer as newest_msg_age_sec,
              extract(epoch from (now() - min(enqueued_at)))::integer as oldest_msg_age_sec,
              now() as scrape_time
       from pgmq.%I
     ), all_metrics as (
       select case when is_called then last_value else 0 end as total_messages from pgmq.%I
     )
     select $1::text, q_summary.queue_length, q_summary.newest_msg_age_sec, q_summary.oldest_msg_age_sec,
            all_metrics.total_messages, q_summary.scrape_time, q_summary.queue_visible_length
     from q_summary, all_metrics', qtable, qtable || '_msg_id_seq')
    into result_row
    using queue_name;
  return result_row;
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
  for name in select m.queue_name from pgmq.meta m loop
    return next pgmq.metrics(name);
  end loop;
end
$$;

-- list_queues(): every queue with its kind and creation time.
create or replace function pgmq.list_queues()
returns setof pgmq.queue_record
language plpgsql
set search_path = ''
as $$
begin
  return query select * from pgmq.meta;
end
$$;
