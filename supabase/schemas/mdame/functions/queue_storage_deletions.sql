-- Records in the deletion outbox the keys no longer in use (mdame.storage_key_in_use); a key in
-- use, or queued already, is left as it is. Returns how many it queued. A new entry is due at once
-- whichever way the engine clock moves next (a soak or a demo puts a moved clock back when it
-- ends): its not_before is the earlier of the engine clock and now().

create or replace function mdame.queue_storage_deletions(p_keys text[], p_kind text)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_count bigint;
begin
  insert into mdame.storage_deletions (key, kind, not_before)
  select distinct k, p_kind, least(mdame.engine_now(), now()) from unnest(coalesce(p_keys, array[]::text[])) k
   where k is not null and not mdame.storage_key_in_use(k)
  on conflict (key) do nothing;
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;

comment on function mdame.queue_storage_deletions(text[],text) is 'internal: the deletion outbox''s entry point for housekeeping';
