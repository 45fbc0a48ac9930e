-- Recovery pass, at run start and on every tick: a unit past its stage deadline whose work is no
-- longer queued gets that work enqueued again (same message, same step token) while attempts
-- remain, and fails with a reason otherwise; a unit whose work is queued but overdue uses up an
-- attempt too, so nothing waits forever.

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
  v_live boolean;
begin
  for v_unit in
    select * from mdame.work_units
     where stage in ('script', 'safety', 'plan', 'media', 'render', 'publish') and stage_deadline < now()
     order by stage_deadline
     for update skip locked
  loop
    select * into v_policy from mdame.stage_policies
     where stage = case v_unit.stage when 'media' then 'visual_generation' else v_unit.stage end;
    if v_unit.stage_attempts >= v_policy.max_attempts then
      perform mdame.cancel_queued_work(v_unit.id);
      perform mdame.set_unit_stage(v_unit.id, 'failed',
        v_unit.stage || ': deadline passed after ' || v_unit.stage_attempts || ' attempt(s)');
      perform mdame.close_run_if_done(v_unit.run_id);
      v_failed := v_failed + 1;
      continue;
    end if;

    v_live := case v_unit.stage
      when 'media' then mdame.has_queued_work('stage_tasks', v_unit.id, 'voice') or mdame.has_queued_work('visual_generation', v_unit.id)
      when 'render' then mdame.has_queued_work('render', v_unit.id)
      else mdame.has_queued_work('stage_tasks', v_unit.id, v_unit.stage) end;
    if not v_live then
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
      jsonb_build_object('requeued', not v_live, 'attempt', v_unit.stage_attempts + 1));
  end loop;
  return jsonb_build_object('requeued', v_requeued, 'failed', v_failed);
end;
$$;

revoke all on function mdame.recover_overdue_work() from public, anon, authenticated;
grant execute on function mdame.recover_overdue_work() to mdame_engine;
grant execute on function mdame.recover_overdue_work() to service_role;
