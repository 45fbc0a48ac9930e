-- Gives a reserved call back to its bucket (and the channel's cap): the call failed before YouTube
-- accepted anything (the token was refused, the session could not be opened). A settled call is
-- spent for good (MDS01); a repeat returns the row unchanged.

create or replace function mdame.release_youtube_call(p_entry_id uuid)
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
  if v_entry.status = 'settled' then
    raise exception 'YouTube call % was settled; YouTube counted it', p_entry_id using errcode = 'MDS01';
  end if;
  if v_entry.status = 'released' then
    return v_entry;
  end if;
  update mdame.quota_ledger set status = 'released', settled_at = mdame.engine_now() where id = p_entry_id returning * into v_entry;
  return v_entry;
end;
$$;
