-- Refuses a time zone this server's zone list does not have (MDV01). The API checks zones with
-- Intl first; a zone Intl knows and this server does not (its tzdata is older) is refused here with
-- a message, not by the table's check.

create or replace function mdame.assert_known_time_zone(p_zone text)
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if p_zone is not null and not exists (select 1 from pg_catalog.pg_timezone_names z where z.name = p_zone) then
    raise exception 'publishing.time_zone: unknown time zone % on this database server (its zones: select name from pg_timezone_names)', p_zone
      using errcode = 'MDV01';
  end if;
end;
$$;

comment on function mdame.assert_known_time_zone(text) is 'internal: guard of create_dimension and update_dimension';
