-- The operator's PATCH reads, merges and checks the configuration under the row lock, so two
-- concurrent changes cannot combine into one neither checked; the lock lasts the caller's transaction.

create or replace function mdame.lock_dimension(p_id text)
returns setof mdame.dimensions
language sql
security definer
set search_path = ''
as $$
  select * from mdame.dimensions where id = p_id for update;
$$;
