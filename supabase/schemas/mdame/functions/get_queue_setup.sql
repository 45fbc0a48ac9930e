-- Whether pgmq and the named queues are installed, for the doctor: the engine role has no usage on
-- schema pgmq, where to_regclass would refuse it.

create or replace function mdame.get_queue_setup(p_queues text[])
returns table(send boolean, queues text[])
language sql
stable security definer
set search_path = ''
as $$
  -- pg_proc, not to_regproc: pgmq 1.5 overloads send, and to_regproc of an overloaded name is null.
  select exists (select 1 from pg_catalog.pg_proc where pronamespace = to_regnamespace('pgmq') and proname = 'send'),
         array(select q from unnest(p_queues) q where to_regclass('pgmq.' || quote_ident('q_' || q)) is not null);
$$;
