-- Pauses (p_active = false) or resumes a dimension. Runs started afterwards leave a paused
-- dimension out (start_run only picks active ones); work already under way finishes.

create or replace function mdame.set_dimension_active(p_id text, p_active boolean)
returns mdame.dimensions
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimensions;
begin
  select * into v_row from mdame.dimensions where id = p_id for update;
  if v_row.id is null then
    raise exception 'no dimension %', p_id using errcode = 'MDN01';
  end if;
  if v_row.active is distinct from p_active then
    update mdame.dimensions set active = p_active, updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;
