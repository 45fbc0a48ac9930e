-- The recorded adaptations, newest first; of one dimension when p_dimension_id is given.

create or replace function mdame.list_adaptations(p_dimension_id text, p_limit integer)
returns setof mdame.adaptations
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.adaptations
   where p_dimension_id is null or dimension_id = p_dimension_id
   order by seq desc
   limit least(greatest(coalesce(p_limit, 50), 1), 500);
$$;
