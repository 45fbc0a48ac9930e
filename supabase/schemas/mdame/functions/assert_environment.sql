create or replace function mdame.assert_environment(p_env text)
returns text
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_env text;
begin
  select value into v_env from mdame.settings where key = 'env';
  if v_env is null then
    raise exception 'this database records no environment (mdame.settings key env)' using errcode = 'MDE01';
  end if;
  if p_env is distinct from v_env then
    raise exception 'ENV=% but this database is %', coalesce(p_env, '(unset)'), v_env using errcode = 'MDE01';
  end if;
  return v_env;
end;
$$;
