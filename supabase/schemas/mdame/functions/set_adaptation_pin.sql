-- Pins a dimension's parameter (it never moves) or unpins it: adds it to or removes it from
-- dimensions.adapt.pinned. Pinning twice or unpinning what is not pinned changes nothing. Returns
-- the pins after the change.

create or replace function mdame.set_adaptation_pin(p_dimension_id text, p_parameter text, p_pinned boolean)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pins jsonb;
begin
  select coalesce(adapt->'pinned', '[]'::jsonb) into v_pins from mdame.dimensions where id = p_dimension_id for update;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  v_pins := coalesce((select jsonb_agg(p order by p) from (
    select distinct value as p from jsonb_array_elements_text(v_pins)
     where value <> p_parameter
    union
    select p_parameter where p_pinned) x), '[]'::jsonb);
  update mdame.dimensions set adapt = jsonb_set(adapt, '{pinned}', v_pins), updated_at = now() where id = p_dimension_id;
  return v_pins;
end;
$$;
