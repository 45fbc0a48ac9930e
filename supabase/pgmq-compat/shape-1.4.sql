-- pgmq 1.4.4's layout, for testing the engine on the older pgmq it must still run on
-- (tembo-io/pgmq, pgmq-extension/sql/pgmq.sql at v1.4.4). Applied after supabase/pgmq-compat/pgmq.sql
-- (pgmq 1.5.1) and before any queue exists, when the local db reset runs with MDAME_PGMQ_SHAPE=1.4.
--
-- What 1.4.4 has that differs from 1.5.1:
--   * no `headers` column in q_<name> / a_<name>, no `headers` attribute in pgmq.message_record;
--   * one send(queue_name, msg, delay integer default 0) and one send_batch(queue_name, msgs,
--     delay integer default 0): no headers, no timestamptz delay, so no overloads;
--   * read and read_with_poll without `conditional`;
--   * no queue_visible_length in pgmq.metrics_result;
--   * drop_queue(queue_name, partitioned boolean default false), one function;
--   * pop and set_vt measure from now() (the transaction's start), purge_queue deletes rather than
--     truncates.

alter type pgmq.message_record drop attribute headers;
alter type pgmq.metrics_result drop attribute queue_visible_length;

drop function pgmq.send(text, jsonb);
drop function pgmq.send(text, jsonb, jsonb);
drop function pgmq.send(text, jsonb, integer);
drop function pgmq.send(text, jsonb, timestamptz);
drop function pgmq.send(text, jsonb, jsonb, integer);
drop function pgmq.send(text, jsonb, jsonb, timestamptz);
drop function pgmq.send_batch(text, jsonb[]);
drop function pgmq.send_batch(text, jsonb[], jsonb[]);
drop function pgmq.send_batch(text, jsonb[], integer);
drop function pgmq.send_batch(text, jsonb[], timestamptz);
drop function pgmq.send_batch(text, jsonb[], jsonb[], integer);
drop function pgmq.send_batch(text, jsonb[], jsonb[], timestamptz);
drop function pgmq.read(text, integer, integer, jsonb);
drop function pgmq.read_with_poll(text, integer, integer, integer, integer, jsonb);
drop function pgmq.drop_queue(text);
drop function pgmq.drop_queue(text, boolean);

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
  perform pg_advisory_xact_lock(hashtext('pgmq.create:' || qtable));
  execute format(
    'create %s table if not exists pgmq.%I (
       msg_id bigint primary key generated always as identity,
       read_ct integer default 0 not null,
       enqueued_at timestamptz default now() not null,
       vt timestamptz not null,
       message jsonb
     )', case when unlogged then 'unlogged' else '' end, qtable);
  execute format(
    'create table if not exists pgmq.%I (
       msg_id bigint primary key,
       read_ct integer default 0 not null,
       enqueued_at timestamptz default now() not null,
       archived_at timestamptz default now() not null,
       vt timestamptz not null,
       message jsonb
     )', atable);
  execute format('create index if not exists %I on pgmq.%I (vt asc)', qtable || '_vt_idx', qtable);
  execute format('create index if not exists %I on pgmq.%I (archived_at)', 'archived_at_idx_' || queue_name, atable);
  insert into pgmq.meta (queue_name, is_partitioned, is_unlogged)
  values (queue_name, false, unlogged)
  on conflict do nothing;
end
$$;

create function pgmq.drop_queue(queue_name text, partitioned boolean default false)
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

create function pgmq.send(queue_name text, msg jsonb, delay integer default 0)
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'insert into pgmq.%I (vt, message) values (clock_timestamp() + make_interval(secs => $2), $1) returning msg_id',
    pgmq.format_table_name(queue_name, 'q'))
    using msg, delay;
end
$$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer default 0)
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

create function pgmq.read(queue_name text, vt integer, qty integer)
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
       limit $1
       for update skip locked
     )
     update pgmq.%1$I m
     set vt = clock_timestamp() + make_interval(secs => $2), read_ct = m.read_ct + 1
     from picked
     where m.msg_id = picked.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message', pgmq.format_table_name(queue_name, 'q'))
    using qty, vt;
end
$$;

create function pgmq.read_with_poll(
  queue_name text,
  vt integer,
  qty integer,
  max_poll_seconds integer default 5,
  poll_interval_ms integer default 100
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
    return query select * from pgmq.read(queue_name, vt, qty);
    if found then
      return;
    end if;
    perform pg_sleep(poll_interval_ms::numeric / 1000);
  end loop;
end
$$;

create or replace function pgmq.pop(queue_name text)
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= now()
       order by msg_id
       limit 1
       for update skip locked
     )
     delete from pgmq.%1$I
     where msg_id = (select msg_id from picked)
     returning *', pgmq.format_table_name(queue_name, 'q'));
end
$$;

create or replace function pgmq.set_vt(queue_name text, msg_id bigint, vt integer)
returns setof pgmq.message_record
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'update pgmq.%I
     set vt = now() + make_interval(secs => $2)
     where msg_id = $1
     returning *', pgmq.format_table_name(queue_name, 'q'))
    using msg_id, vt;
end
$$;

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
       returning msg_id, vt, read_ct, enqueued_at, message
     )
     insert into pgmq.%I (msg_id, vt, read_ct, enqueued_at, message)
     select msg_id, vt, read_ct, enqueued_at, message from archived
     returning msg_id', pgmq.format_table_name(queue_name, 'q'), pgmq.format_table_name(queue_name, 'a'))
    into moved
    using msg_id;
  return moved is not null;
end
$$;

create or replace function pgmq.archive(queue_name text, msg_ids bigint[])
returns setof bigint
language plpgsql
set search_path = ''
as $$
begin
  return query execute format(
    'with archived as (
       delete from pgmq.%I where msg_id = any($1)
       returning msg_id, vt, read_ct, enqueued_at, message
     )
     insert into pgmq.%I (msg_id, vt, read_ct, enqueued_at, message)
     select msg_id, vt, read_ct, enqueued_at, message from archived
     returning msg_id', pgmq.format_table_name(queue_name, 'q'), pgmq.format_table_name(queue_name, 'a'))
    using msg_ids;
end
$$;

create or replace function pgmq.purge_queue(queue_name text)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  deleted_count integer;
begin
  execute format('delete from pgmq.%I', pgmq.format_table_name(queue_name, 'q'));
  get diagnostics deleted_count = row_count;
  return deleted_count;
end
$$;

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
              extract(epoch from (now() - max(enqueued_at)))::integer as newest_msg_age_sec,
              extract(epoch from (now() - min(enqueued_at)))::integer as oldest_msg_age_sec,
              now() as scrape_time
       from pgmq.%I
     ), all_metrics as (
       select case when is_called then last_value else 0 end as total_messages from pgmq.%I
     )
     select $1::text, q_summary.queue_length, q_summary.newest_msg_age_sec, q_summary.oldest_msg_age_sec,
            all_metrics.total_messages, q_summary.scrape_time
     from q_summary, all_metrics', qtable, qtable || '_msg_id_seq')
    into result_row
    using queue_name;
  return result_row;
end
$$;
