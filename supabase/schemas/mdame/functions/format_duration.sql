-- A duration as an operator reads it in a message: "45 s", "6 min", "2 h 5 min", "3 d 4 h".

create or replace function mdame.format_duration(p_duration interval)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_s bigint := greatest(0, floor(extract(epoch from p_duration)))::bigint;
begin
  if v_s < 60 then
    return v_s || ' s';
  elsif v_s < 3600 then
    return (v_s / 60) || ' min';
  elsif v_s < 86400 then
    return (v_s / 3600) || ' h' || case when (v_s % 3600) / 60 > 0 then ' ' || ((v_s % 3600) / 60) || ' min' else '' end;
  end if;
  return (v_s / 86400) || ' d' || case when (v_s % 86400) / 3600 > 0 then ' ' || ((v_s % 86400) / 3600) || ' h' else '' end;
end;
$$;

comment on function mdame.format_duration(interval) is 'internal: a duration as text for messages (45 s, 6 min, 2 h 5 min)';
