create or replace function mdame.get_publication(p_id uuid)
returns setof mdame.publications
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.publications where id = p_id;
$$;

revoke all on function mdame.get_publication(uuid) from public, anon, authenticated;
grant execute on function mdame.get_publication(uuid) to mdame_engine;
grant execute on function mdame.get_publication(uuid) to service_role;
