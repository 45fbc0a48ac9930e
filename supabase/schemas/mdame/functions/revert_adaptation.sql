-- Reverts one adaptation: the value before it is in force again from the next run. Only the move in
-- force for its parameter may be reverted (a later one would hide the revert: MDS01); reverting one
-- already reverted returns it unchanged.

create or replace function mdame.revert_adaptation(p_id uuid)
returns mdame.adaptations
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.adaptations;
  v_latest uuid;
begin
  select * into v_row from mdame.adaptations where id = p_id;
  if not found then
    raise exception 'no adaptation %', p_id using errcode = 'MDN01';
  end if;
  perform 1 from mdame.dimensions where id = v_row.dimension_id for update;
  select * into v_row from mdame.adaptations where id = p_id for update;
  if v_row.reverted_at is not null then
    return v_row;
  end if;
  select a.id into v_latest from mdame.adaptations a
   where a.dimension_id = v_row.dimension_id and a.parameter = v_row.parameter and a.applied and a.reverted_at is null
   order by a.seq desc limit 1;
  if v_latest is distinct from v_row.id then
    raise exception 'adaptation % is not the one in force for % of %: revert % first', p_id, v_row.parameter, v_row.dimension_id, v_latest
      using errcode = 'MDS01';
  end if;
  update mdame.adaptations set reverted_at = mdame.engine_now() where id = p_id returning * into v_row;
  return v_row;
end;
$$;
