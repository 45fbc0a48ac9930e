-- Claims up to p_limit due entries of the deletion outbox for p_lease_s seconds (engine clock):
-- each claim counts an attempt and hides the entry until the lease runs out, so a drain that dies
-- leaves it to the next one. A key something uses again since it was queued (a new cache entry,
-- a live unit's scene; mdame.storage_key_in_use) is dropped from the outbox instead of returned:
-- its object stays. p_keys: only those keys (an abort drains what it just queued).

create or replace function mdame.claim_storage_deletions(p_limit integer, p_lease_s integer, p_keys text[] default null::text[])
returns setof mdame.storage_deletions
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.storage_deletions;
begin
  if p_limit is null or p_limit not between 1 and 1000 or p_lease_s is null or p_lease_s not between 1 and 3600 then
    raise exception 'a claim takes 1 to 1000 entries for 1 to 3600 seconds' using errcode = '22023';
  end if;
  for v_row in
    select * from mdame.storage_deletions d where d.not_before <= mdame.engine_now() and (p_keys is null or d.key = any (p_keys))
     order by d.not_before, d.key limit p_limit for update skip locked
  loop
    if mdame.storage_key_in_use(v_row.key) then
      delete from mdame.storage_deletions d where d.key = v_row.key;
      perform mdame.log_event(null, null, 'housekeeping', 'storage_deletion_dropped',
        jsonb_build_object('key', v_row.key, 'kind', v_row.kind, 'reason', 'in use again'));
      continue;
    end if;
    update mdame.storage_deletions d set not_before = mdame.engine_now() + make_interval(secs => p_lease_s), attempts = d.attempts + 1
     where d.key = v_row.key
    returning * into v_row;
    return next v_row;
  end loop;
end;
$$;
