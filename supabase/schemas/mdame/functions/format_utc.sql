-- A moment as an operator reads it in a message: "2026-12-05 16:02 UTC".

create or replace function mdame.format_utc(p_at timestamp with time zone)
returns text
language sql
immutable
set search_path = ''
as $$
  select to_char(p_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"');
$$;

comment on function mdame.format_utc(timestamp with time zone) is 'internal: a moment as text for messages (UTC, to the minute)';
