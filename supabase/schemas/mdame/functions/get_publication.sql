create or replace function mdame.get_publication(p_id uuid)
returns setof mdame.publications
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.publications where id = p_id;
$$;
