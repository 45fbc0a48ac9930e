create or replace function mdame.get_accounts(p_dimension_id text default null::text, p_id uuid default null::uuid)
returns setof mdame.dimension_accounts
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.dimension_accounts
   where (p_dimension_id is null or dimension_id = p_dimension_id) and (p_id is null or id = p_id)
   order by dimension_id, platform, channel_handle;
$$;
