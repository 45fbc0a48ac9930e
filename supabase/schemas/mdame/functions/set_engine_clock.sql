-- Moves the engine's clock (mdame.engine_now) to now() + p_offset; null or zero puts it back on
-- now(). Only a dev database takes it (MDE01 otherwise): a production ledger runs on the real clock.
-- Returns the engine's time after the move.

create or replace function mdame.set_engine_clock(p_offset interval)
returns timestamp with time zone
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_env text;
begin
  select value into v_env from mdame.settings where key = 'env';
  if v_env is distinct from 'dev' then
    raise exception 'the engine clock moves only in a dev database; this one records env %', coalesce(v_env, '(none)')
      using errcode = 'MDE01';
  end if;
  if p_offset is null or p_offset = interval '0' then
    delete from mdame.settings where key = 'clock_offset';
  else
    insert into mdame.settings (key, value, updated_at) values ('clock_offset', p_offset::text, now())
    on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at;
  end if;
  return mdame.engine_now();
end;
$$;
