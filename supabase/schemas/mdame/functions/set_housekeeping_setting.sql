-- Sets one retention setting (docs/reference/retention.md); a null value puts it back on its default. An
-- unknown name or a value outside the setting's range is refused (MDV01). Returns every setting.

create or replace function mdame.set_housekeeping_setting(p_name text, p_value integer)
returns table(name text, value integer, default_value integer, min_value integer, max_value integer)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_setting record;
begin
  select * into v_setting from mdame.housekeeping_settings() s where s.name = p_name;
  if not found then
    raise exception 'no housekeeping setting %', coalesce(p_name, '(null)') using errcode = 'MDV01';
  end if;
  if p_value is null then
    delete from mdame.settings where key = 'housekeeping.' || p_name;
  elsif p_value not between v_setting.min_value and v_setting.max_value then
    raise exception 'housekeeping setting % takes % to %, not %', p_name, v_setting.min_value, v_setting.max_value, p_value
      using errcode = 'MDV01';
  else
    insert into mdame.settings (key, value, updated_at) values ('housekeeping.' || p_name, p_value::text, now())
    on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at;
  end if;
  return query select * from mdame.housekeeping_settings();
end;
$$;
