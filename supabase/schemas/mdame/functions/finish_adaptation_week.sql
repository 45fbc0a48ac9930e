-- Marks a claimed week's decisions done; finishing it again changes nothing.

create or replace function mdame.finish_adaptation_week(p_week_start date)
returns mdame.adaptation_weeks
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.adaptation_weeks;
begin
  update mdame.adaptation_weeks set finished_at = coalesce(finished_at, mdame.engine_now())
   where week_start = p_week_start returning * into v_row;
  if not found then
    raise exception 'no adaptation week %', p_week_start using errcode = 'MDN01';
  end if;
  return v_row;
end;
$$;
