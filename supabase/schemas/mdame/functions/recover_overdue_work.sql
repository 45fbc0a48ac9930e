-- Recovery pass, at run start and on every tick, over units whose stage deadline has passed (at most
-- 1,000 a pass, the most overdue first, through work_units_open_idx). A deadline starts when a unit
-- enters a stage and again each time its work is leased (claim_stage_tasks, read_worker_jobs), so:
-- - work that waits in its queue for a reader is not overdue: its unit's next check is moved on, no
--   attempt is spent and nothing fails, however long the queue (read limits bound re-reads);
-- - work that is leased and overran its deadline spends an attempt, and fails its unit with a reason
--   once the stage's attempts are used up;
-- - work that is lost (no message for the unit in any of its queues) is enqueued again (same
--   message, same step token) and spends an attempt, or fails the unit when none are left.

create or replace function mdame.recover_overdue_work()
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_policy mdame.stage_policies;
  v_scene mdame.scenes;
  v_requeued integer := 0;
  v_failed integer := 0;
  v_state text;
  v_visual text;
begin
  for v_unit in
    -- The predicate of work_units_open_idx: deferred units (and terminal ones) have no deadline.
    select * from mdame.work_units
     where stage <> all (array['published', 'rejected', 'failed']) and stage_deadline < now()
     order by stage_deadline
     limit 1000
     for update skip locked
  loop
    v_policy := mdame.unit_stage_policy(v_unit.stage);
    if v_unit.stage = 'media' then
      v_state := mdame.queued_work_state('stage_tasks', v_unit.id, 'voice');
      v_visual := mdame.queued_work_state('visual_generation', v_unit.id);
      v_state := case when 'leased' in (v_state, v_visual) then 'leased' else coalesce(v_state, v_visual) end;
    elsif v_unit.stage = 'render' then
      v_state := mdame.queued_work_state('render', v_unit.id);
    else
      v_state := mdame.queued_work_state('stage_tasks', v_unit.id, v_unit.stage);
    end if;

    if v_state = 'waiting' then
      update mdame.work_units
         set stage_deadline = now() + make_interval(secs => v_policy.deadline_s)
       where id = v_unit.id;
      continue;
    end if;

    if v_unit.stage_attempts >= v_policy.max_attempts then
      perform mdame.cancel_queued_work(v_unit.id);
      perform mdame.set_unit_stage(v_unit.id, 'failed',
        v_unit.stage || ': deadline passed after ' || v_unit.stage_attempts || ' attempt(s)');
      perform mdame.close_run_if_done(v_unit.run_id);
      v_failed := v_failed + 1;
      continue;
    end if;

    if v_state is null then
      if v_unit.stage = 'media' then
        if v_unit.voice is null then
          perform mdame.enqueue_stage_task('voice', v_unit.run_id, v_unit.id);
        end if;
        for v_scene in select * from mdame.scenes where unit_id = v_unit.id and status = 'queued' and job is not null loop
          update mdame.scenes set msg_id = (select pgmq.send('visual_generation', v_scene.job)) where id = v_scene.id;
        end loop;
      elsif v_unit.stage = 'render' then
        perform pgmq.send('render', mdame.render_job(v_unit.id));
      else
        perform mdame.enqueue_stage_task(v_unit.stage, v_unit.run_id, v_unit.id);
      end if;
      v_requeued := v_requeued + 1;
    end if;
    update mdame.work_units
       set stage_attempts = stage_attempts + 1,
           stage_deadline = now() + make_interval(secs => v_policy.deadline_s),
           updated_at = now()
     where id = v_unit.id;
    perform mdame.log_event(v_unit.run_id, v_unit.id, v_unit.stage, 'recovered',
      jsonb_build_object('requeued', v_state is null, 'attempt', v_unit.stage_attempts + 1));
  end loop;
  return jsonb_build_object('requeued', v_requeued, 'failed', v_failed);
end;
$$;
