-- Recovery sweep and wake-up: the recovery pass (overdue work re-enqueued or failed), dead-letters
-- worker messages that used up their attempts without a callback (at most 500 a queue a tick, found
-- through the queue's read_ct index, so a long queue of unread jobs costs nothing), closes finished
-- runs, wakes the stage runner when stage tasks are visible.

create or replace function mdame.tick()
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_queue text;
  v_msg record;
  v_unit mdame.work_units;
  v_policy mdame.stage_policies;
  v_run_id uuid;
  v_dead integer := 0;
  v_closed integer := 0;
  v_visible bigint;
  v_recovery jsonb;
begin
  -- Runs as the function's caller: the recovery pass is defined in a later migration.
  v_recovery := mdame.recover_overdue_work();
  foreach v_queue in array array['visual_generation', 'render'] loop
    select * into v_policy from mdame.stage_policies where stage = v_queue;
    for v_msg in execute format(
      'select msg_id, read_ct, message from pgmq.%I where read_ct >= $1 and vt <= now() limit 500 for update skip locked', 'q_' || v_queue)
      using v_policy.max_attempts
    loop
      -- skip locked: a completion holding the unit is finishing this very job; never wait on it.
      select * into v_unit from mdame.work_units where id = (v_msg.message->>'unit_id')::uuid for update skip locked;
      if v_unit.id is null and exists (select 1 from mdame.work_units where id = (v_msg.message->>'unit_id')::uuid) then
        continue;
      end if;
      if v_unit.id is null or v_unit.stage in ('published', 'deferred', 'rejected', 'failed') then
        perform pgmq.archive(v_queue, v_msg.msg_id);
      else
        perform mdame.retry_or_dead_letter(v_queue, v_queue, v_msg.msg_id, v_msg.read_ct, v_msg.message,
                                           v_unit.id, v_unit.run_id, 'attempts exhausted without a completion', false);
        v_dead := v_dead + 1;
      end if;
    end loop;
  end loop;

  -- skip locked: a run a completion holds right now is closed by that completion or the next tick.
  for v_run_id in select id from mdame.pipeline_runs where status = 'running' order by created_at for no key update skip locked loop
    if (mdame.close_run_if_done(v_run_id)).status <> 'running' then
      v_closed := v_closed + 1;
    end if;
  end loop;

  select count(*) into v_visible from pgmq.q_stage_tasks where vt <= now();
  if v_visible > 0 then
    perform mdame.wake_stage_runner('tick');
  end if;
  return jsonb_build_object('recovery', v_recovery, 'dead_lettered', v_dead, 'runs_closed', v_closed, 'stage_tasks_visible', v_visible);
end;
$$;
