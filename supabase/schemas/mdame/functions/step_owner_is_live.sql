-- Whether a step token's owner (step:<owner>:...: a unit, a scene or a run id) is still at work:
-- a unit not in a terminal stage, a scene of such a unit, or a running run. Its step results may
-- be replayed, so housekeeping keeps them.

create or replace function mdame.step_owner_is_live(p_step_token text)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
declare
  v_owner text := split_part(p_step_token, ':', 2);
  v_id uuid;
begin
  if v_owner !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return false;
  end if;
  v_id := v_owner::uuid;
  return exists (select 1 from mdame.work_units u where u.id = v_id and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                  where s.id = v_id and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.pipeline_runs r where r.id = v_id and r.status = 'running');
end;
$$;

comment on function mdame.step_owner_is_live(text) is 'internal: housekeeping keeps the step results of live owners';
