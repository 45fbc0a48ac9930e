-- pg_net's SQL surface for tests on plain Postgres (see README.md beside this file). Same names,
-- columns and http_post signature as pg_net 0.x; requests wait in net.http_request_queue until a
-- test performs them, as pg_net's worker picks them up after the enqueuing transaction commits.
-- Where the real pg_net is installed (a Supabase server), the file leaves it alone.

select exists (select 1 from pg_extension where extname = 'pg_net') as shim_real_pg_net \gset
\if :shim_real_pg_net
\else

create schema if not exists net;

create table if not exists net.http_request_queue (
  id bigserial primary key,
  method text not null,
  url text not null,
  headers jsonb,
  body bytea,
  timeout_milliseconds integer not null
);

create table if not exists net._http_response (
  id bigint primary key,
  status_code integer,
  content_type text,
  headers jsonb,
  content text,
  timed_out boolean,
  error_msg text,
  created timestamptz not null default now()
);

create or replace function net.http_post(
  url text,
  body jsonb default '{}'::jsonb,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds integer default 5000)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_url text := url;
  v_id bigint;
begin
  -- pg_net appends params as the query string.
  if params is not null and params <> '{}'::jsonb then
    v_url := v_url || case when position('?' in v_url) > 0 then '&' else '?' end
      || (select string_agg(key || '=' || value, '&' order by key) from jsonb_each_text(params));
  end if;
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('POST', v_url, headers, convert_to(body::text, 'UTF8'), timeout_milliseconds)
  returning id into v_id;
  return v_id;
end;
$$;

\endif
