-- Storage refused or did not answer the deletion of p_key: the entry waits p_delay_s seconds
-- (engine clock) and records the error; it is never given up. Returns the entry, or null when the
-- key is no longer in the outbox.

create or replace function mdame.retry_storage_deletion(p_key text, p_error text, p_delay_s integer)
returns mdame.storage_deletions
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.storage_deletions;
begin
  if p_delay_s is null or p_delay_s not between 0 and 86400 then
    raise exception 'a retry waits 0 to 86400 seconds' using errcode = '22023';
  end if;
  update mdame.storage_deletions d
     set not_before = mdame.engine_now() + make_interval(secs => p_delay_s), last_error = left(coalesce(p_error, ''), 500)
   where d.key = p_key
  returning * into v_row;
  return v_row;
end;
$$;
