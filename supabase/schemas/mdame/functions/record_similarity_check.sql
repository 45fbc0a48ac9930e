-- Appends one channel-standing check to the unit (work_units.similarity.checks) with the action
-- taken, and logs it (event similarity_checked: action and combined score, which the weekly report
-- counts). p_check is a SimilarityCheck (shared/contracts/similarity.ts).

create or replace function mdame.record_similarity_check(p_unit_id uuid, p_check jsonb, p_action text)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
begin
  if jsonb_typeof(p_check) is distinct from 'object' or p_action not in ('passed', 'regenerated', 'rejected') then
    raise exception 'a similarity check must be an object and its action passed, regenerated or rejected' using errcode = 'MDS01';
  end if;
  update mdame.work_units u
     set similarity = jsonb_build_object('checks', coalesce(u.similarity->'checks', '[]'::jsonb)
                        || jsonb_build_array(p_check || jsonb_build_object('action', p_action, 'checked_at', mdame.engine_now()))),
         updated_at = now()
   where u.id = p_unit_id
  returning * into v_unit;
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'plan', 'similarity_checked', jsonb_build_object(
    'action', p_action, 'combined', p_check->'closest'->'figures'->'combined', 'compared', p_check->'compared'));
  return v_unit;
end;
$$;

comment on function mdame.record_similarity_check(uuid,jsonb,text) is 'internal: appends a channel-standing check to a unit the caller has locked';
