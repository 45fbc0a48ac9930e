-- The deletion outbox's new entries are due at once whichever way the engine clock moves next: a
-- pass run on a moved clock (a soak, bench:housekeeping --age-days) left them waiting for the clock
-- to come back to that day once it was put back on real time.

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

revoke all on function mdame.queue_storage_deletions(text[],text) from public, anon, authenticated;

select mdame.restrict_function_privileges();
