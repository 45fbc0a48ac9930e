-- Settles a reserved call once YouTube accepted it (for an upload: the session was opened, so the
-- call counts whatever happens to the bytes). A repeat returns the row unchanged; a released call
-- cannot be settled (MDS01).

create or replace function mdame.settle_youtube_call(p_entry_id uuid)
returns mdame.quota_ledger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_entry mdame.quota_ledger;
begin
  select * into v_entry from mdame.quota_ledger where id = p_entry_id and entry = 'call' for update;
  if not found then
    raise exception 'no reserved YouTube call %', p_entry_id using errcode = 'MDN01';
  end if;
  if v_entry.status = 'released' then
    raise exception 'YouTube call % was released; it cannot be settled', p_entry_id using errcode = 'MDS01';
  end if;
  if v_entry.status = 'settled' then
    return v_entry;
  end if;
  update mdame.quota_ledger set status = 'settled', settled_at = mdame.engine_now() where id = p_entry_id returning * into v_entry;
  return v_entry;
end;
$$;
