-- Moves a unit to a stage and starts that stage's deadline clock.

create or replace function mdame.set_unit_stage(p_unit_id uuid, p_stage text, p_error text default null::text)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
begin
  update mdame.work_units u
     set stage = p_stage,
         stage_attempts = 0,
         stage_deadline = case when p_stage in ('published', 'deferred', 'rejected', 'failed') then null
                               else now() + make_interval(secs => coalesce(
                                 (select deadline_s from mdame.stage_policies where stage = case p_stage when 'media' then 'visual_generation' else p_stage end), 3600)) end,
         error = coalesce(p_error, u.error),
         updated_at = now()
   where u.id = p_unit_id
  returning * into v_unit;
  perform mdame.log_event(v_unit.run_id, v_unit.id, p_stage, 'stage_entered', jsonb_strip_nulls(jsonb_build_object('error', p_error)));
  return v_unit;
end;
$$;

comment on function mdame.set_unit_stage(uuid,text,text) is 'internal: moves a unit without checking its stage or lease';

revoke all on function mdame.set_unit_stage(uuid,text,text) from public, anon, authenticated;
