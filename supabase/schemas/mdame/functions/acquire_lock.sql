-- Takes the named lock for p_holder, or extends it when p_holder already has it. An expired lease
-- may be taken by anyone; a live one held by another holder raises MDL01.

create or replace function mdame.acquire_lock(p_name text, p_holder text, p_lease_s integer)
returns mdame.system_locks
language plpgsql
set search_path = ''
as $$
declare
  v_lock mdame.system_locks;
begin
  insert into mdame.system_locks (name, holder, lease_expires_at)
  values (p_name, p_holder, now() + make_interval(secs => p_lease_s))
  on conflict (name) do nothing
  returning * into v_lock;
  if found then
    return v_lock;
  end if;

  select * into v_lock from mdame.system_locks where name = p_name for update;
  if v_lock.holder <> p_holder and v_lock.lease_expires_at > now() then
    raise exception 'lock % is held by % until %', p_name, v_lock.holder, v_lock.lease_expires_at using errcode = 'MDL01';
  end if;
  update mdame.system_locks
     set holder = p_holder,
         acquired_at = case when holder = p_holder then acquired_at else now() end,
         lease_expires_at = now() + make_interval(secs => p_lease_s)
   where name = p_name
  returning * into v_lock;
  return v_lock;
end;
$$;

comment on function mdame.acquire_lock(text,text,integer) is 'internal: the environment''s orchestration-pass lock, taken by start_run for its pass';
