create or replace function mdame.list_dead_letters(p_limit integer)
returns setof mdame.dead_letters
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.dead_letters order by id desc limit greatest(1, least(p_limit, 1000));
$$;
