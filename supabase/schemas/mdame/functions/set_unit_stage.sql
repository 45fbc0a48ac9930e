-- Moves a unit to a stage and sets when the recovery pass first looks at it: the stage's deadline
-- from now. Until its work is leased that is only a check that the work still exists; each lease
-- (claim_stage_tasks, read_worker_jobs) starts the deadline again, so waiting in a queue never
-- counts against the unit. A unit awaiting review has no deadline either: its review's own expiry
-- (mdame.unit_reviews.expires_at, acted on by expire_reviews) bounds the wait.

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
         stage_deadline = case when p_stage in ('awaiting_review', 'published', 'deferred', 'rejected', 'failed') then null
                               else now() + make_interval(secs => coalesce((mdame.unit_stage_policy(p_stage)).deadline_s, 3600)) end,
         error = coalesce(p_error, u.error),
         updated_at = now()
   where u.id = p_unit_id
  returning * into v_unit;
  perform mdame.log_event(v_unit.run_id, v_unit.id, p_stage, 'stage_entered', jsonb_strip_nulls(jsonb_build_object('error', p_error)));
  return v_unit;
end;
$$;

comment on function mdame.set_unit_stage(uuid,text,text) is 'internal: moves a unit without checking its stage or lease';
