-- pg_net's SQL surface for servers without the pg_net extension (the local stack on the OS
-- packages' Postgres), so mdame.wake_stage_runner runs the same SQL everywhere.
--
-- Follows pg_net 0.x (github.com/supabase/pg_net): the same schema, table and column names, and the same
-- net.http_post signature returning the request id. A request waits in net.http_request_queue until
-- the enqueuing transaction commits; then a sender takes it, performs it and records the answer in
-- net._http_response under the request's id, as pg_net's background worker does. On the local stack
-- that sender is the supervisor's `net` component (stack/net-sender.ts); http_post notifies it on
-- channel net_http_request (delivered at commit, like the request itself).
--
-- Installed by the local stack's db reset after the migrations, only where `pg_available_extensions`
-- has no pg_net (the Supabase CLI's reset drops schema net, which no extension owns here). Where the
-- real pg_net is installed, this file leaves it alone. Re-running it is harmless.

select exists (select 1 from pg_extension where extname = 'pg_net') as compat_real_pg_net \gset
\if :compat_real_pg_net
\else

create schema if not exists net;

-- Unlogged, as pg_net's own: a request or an answer lost in a crash is what the minutely tick covers.
create unlogged table if not exists net.http_request_queue (
  id bigserial primary key,
  method text not null,
  url text not null,
  headers jsonb,
  body bytea,
  timeout_milliseconds integer not null
);

create unlogged table if not exists net._http_response (
  id bigint,
  status_code integer,
  content_type text,
  headers jsonb,
  content text,
  timed_out boolean,
  error_msg text,
  created timestamptz not null default now()
);
create index if not exists _http_response_created_idx on net._http_response (created);

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
  if url is null or url !~* '^https?://' then
    raise exception 'net.http_post: url must start with http:// or https://, got %', coalesce(url, 'null')
      using errcode = '22023';
  end if;
  if timeout_milliseconds is null or timeout_milliseconds < 1 then
    raise exception 'net.http_post: timeout_milliseconds must be a positive number of milliseconds'
      using errcode = '22023';
  end if;
  -- pg_net appends params as the query string.
  if params is not null and params <> '{}'::jsonb then
    v_url := v_url || case when position('?' in v_url) > 0 then '&' else '?' end
      || (select string_agg(key || '=' || value, '&' order by key) from jsonb_each_text(params));
  end if;
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('POST', v_url, headers, convert_to(body::text, 'UTF8'), timeout_milliseconds)
  returning id into v_id;
  perform pg_notify('net_http_request', v_id::text);
  return v_id;
end;
$$;

\endif
