-- Releases the lock if p_holder holds it; true when released, false when it was not the holder's.

create or replace function mdame.release_lock(p_name text, p_holder text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  delete from mdame.system_locks where name = p_name and holder = p_holder;
  return found;
end;
$$;

comment on function mdame.release_lock(text,text) is 'internal: the environment''s orchestration-pass lock, released as start_run''s pass ends';
