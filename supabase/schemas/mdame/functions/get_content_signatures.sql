-- The signatures the channel-standing guard compares a unit with (docs/reference/similarity.md): the
-- latest p_limit units of the dimension that passed the guard and were not rejected or failed since
-- (published, or on their way to be), newest first, the unit itself left out. One read of the
-- (dimension_id, created_at) index, however many texts the dimension has published.

create or replace function mdame.get_content_signatures(p_dimension_id text, p_unit_id uuid, p_limit integer)
returns table (unit_id uuid, title text, signature jsonb)
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  if p_limit is null or p_limit < 1 or p_limit > 500 then
    raise exception 'compare with 1 to 500 videos, not %', p_limit using errcode = 'MDS01';
  end if;
  return query
    select s.unit_id, s.title,
           jsonb_build_object('title', to_jsonb(s.title_minhash), 'hook', to_jsonb(s.hook_minhash),
                              'script', to_jsonb(s.script_minhash), 'scene_hashes', to_jsonb(s.scene_hashes))
      from mdame.content_signatures s
      join mdame.work_units u on u.id = s.unit_id
     where s.dimension_id = p_dimension_id
       and s.unit_id is distinct from p_unit_id
       and u.stage not in ('rejected', 'failed')
     order by s.created_at desc, s.unit_id
     limit p_limit;
end;
$$;
