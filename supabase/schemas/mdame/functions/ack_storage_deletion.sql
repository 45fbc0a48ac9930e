-- The object at p_key is gone from Storage: its outbox entry is done. Returns whether there was
-- one (a repeated acknowledgement finds none and changes nothing).

create or replace function mdame.ack_storage_deletion(p_key text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from mdame.storage_deletions d where d.key = p_key;
  return found;
end;
$$;
