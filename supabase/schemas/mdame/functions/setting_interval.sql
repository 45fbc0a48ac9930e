-- A settings key read as an interval: the key's value when it is a positive interval, p_default
-- when the key is missing or its value is not one (a typo in a setting must not stop the check that
-- reads it).

create or replace function mdame.setting_interval(p_key text, p_default interval)
returns interval
language plpgsql
stable
set search_path = ''
as $$
declare
  v_text text;
  v_value interval;
begin
  select s.value into v_text from mdame.settings s where s.key = p_key;
  if v_text is null then
    return p_default;
  end if;
  begin
    v_value := v_text::interval;
  exception when others then
    return p_default;
  end;
  return case when v_value > interval '0' then v_value else p_default end;
end;
$$;

comment on function mdame.setting_interval(text, interval) is 'internal: a settings key as a positive interval, else the default';
