-- Worker jobs, guarded where a probe of the running stack found them open:
--   * the completion RPCs (complete_visual_job, complete_render_job, fail_worker_job) archived
--     whatever msg_id a callback named, even one of another unit, and complete_render_job archived
--     before it recorded the webhook-id, so a replayed delivery could still archive. Now the webhook-id
--     is recorded first (a replay changes nothing) and a message is archived only when its queue
--     payload names the scene or unit the callback completes;
--   * the workers read with pgmq.read, which has no attempt limit: a job that kills its worker came
--     back forever (the tick only dead-letters visible messages, and a restarted worker reads them
--     first). mdame.read_worker_jobs reads as pgmq.read does and dead-letters, instead of handing
--     out, a message read more often than its stage allows, as claim_stage_tasks does for stage tasks.

-- The payload of a worker queue's message, looked up in the queue and then in its archive (a
-- message a completion already archived). Found is false when the queue never held it.
create function mdame.worker_message(p_queue text, p_msg_id bigint, out payload jsonb, out queued boolean, out found_any boolean)
language plpgsql
stable
set search_path = ''
as $$
begin
  if p_queue = 'visual_generation' then
    select q.message into payload from pgmq.q_visual_generation q where q.msg_id = p_msg_id;
    queued := found;
    if not queued then
      select a.message into payload from pgmq.a_visual_generation a where a.msg_id = p_msg_id;
    end if;
  elsif p_queue = 'render' then
    select q.message into payload from pgmq.q_render q where q.msg_id = p_msg_id;
    queued := found;
    if not queued then
      select a.message into payload from pgmq.a_render a where a.msg_id = p_msg_id;
    end if;
  else
    raise exception 'not a worker queue: %', p_queue using errcode = 'MDS01';
  end if;
  found_any := payload is not null;
end;
$$;

-- Refuses a callback whose message is not the job it reports on: unknown to the queue (MDN01), or
-- naming another unit or scene in its payload (MDS01). Returns whether the message is still queued
-- (false: a completion archived it already, nothing is left to archive).
create function mdame.assert_worker_message(p_queue text, p_msg_id bigint, p_unit_id uuid, p_scene_id uuid default null)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
declare
  v_msg record;
begin
  select * into v_msg from mdame.worker_message(p_queue, p_msg_id);
  if not v_msg.found_any then
    raise exception 'no % message %', p_queue, p_msg_id using errcode = 'MDN01';
  end if;
  if v_msg.payload->>'unit_id' is distinct from p_unit_id::text
     or (p_scene_id is not null and v_msg.payload ? 'scene_id' and v_msg.payload->>'scene_id' is distinct from p_scene_id::text) then
    raise exception '% message % is the job of another % (unit %)', p_queue, p_msg_id,
      case when p_scene_id is null then 'unit' else 'scene' end, left(coalesce(v_msg.payload->>'unit_id', 'none'), 64)
      using errcode = 'MDS01';
  end if;
  return v_msg.queued;
end;
$$;

create or replace function mdame.complete_visual_job(p_msg_id bigint, p_scene_id uuid, p_scene_hash text, p_asset_key text, p_backend text, p_cache_hit boolean, p_webhook_id text)
returns mdame.scenes
language plpgsql
set search_path = ''
as $$
declare
  v_scene mdame.scenes;
  v_unit mdame.work_units;
  v_queued boolean;
begin
  select * into v_scene from mdame.scenes where id = p_scene_id;
  if not found then
    raise exception 'no scene %', p_scene_id using errcode = 'MDN01';
  end if;
  select * into v_unit from mdame.work_units where id = v_scene.unit_id for update;
  select * into v_scene from mdame.scenes where id = p_scene_id for update;
  if not mdame.record_webhook(p_webhook_id, 'visual_generation.completed') then
    return v_scene;
  end if;
  if v_scene.scene_hash <> p_scene_hash then
    raise exception 'scene % has hash %, the callback reported %', p_scene_id, v_scene.scene_hash, left(p_scene_hash, 64) using errcode = 'MDS01';
  end if;
  v_queued := mdame.assert_worker_message('visual_generation', p_msg_id, v_scene.unit_id, p_scene_id);
  if v_queued then
    perform pgmq.archive('visual_generation', p_msg_id);
  end if;
  insert into mdame.scene_cache (scene_hash, asset_key, backend) values (p_scene_hash, p_asset_key, p_backend)
  on conflict (scene_hash) do nothing;
  if v_scene.status = 'ready' or v_unit.stage <> 'media' then
    return v_scene;
  end if;
  update mdame.scenes set status = 'ready', asset_key = p_asset_key, cache_hit = p_cache_hit, updated_at = now()
   where id = p_scene_id
  returning * into v_scene;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'visual_generation', 'scene_ready',
    jsonb_build_object('scene_index', v_scene.scene_index, 'cache_hit', p_cache_hit, 'backend', p_backend));
  perform mdame.enqueue_render_if_ready(v_unit.id);
  return v_scene;
end;
$$;

create or replace function mdame.complete_render_job(p_msg_id bigint, p_unit_id uuid, p_video jsonb, p_webhook_id text)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_queued boolean;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if not mdame.record_webhook(p_webhook_id, 'render.completed') then
    return v_unit;
  end if;
  v_queued := mdame.assert_worker_message('render', p_msg_id, p_unit_id);
  -- A late call (the unit moved on) archives the unit's own job, if it is still queued.
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'render', 'render', case when v_queued then p_msg_id end, null);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set video = p_video where id = p_unit_id;
  if v_queued then
    perform pgmq.archive('render', p_msg_id);
  end if;
  v_unit := mdame.set_unit_stage(p_unit_id, 'publish');
  perform mdame.enqueue_stage_task('publish', v_unit.run_id, p_unit_id);
  return v_unit;
end;
$$;

-- A worker reported a failed job: retried after the backoff while attempts remain, else the
-- message is dead-lettered and the unit fails. The job of a unit that is over is archived; a
-- message naming another unit is refused and left alone.
create or replace function mdame.fail_worker_job(p_queue text, p_msg_id bigint, p_unit_id uuid, p_error text, p_retriable boolean, p_webhook_id text)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_msg record;
  v_unit mdame.work_units;
  v_outcome text;
begin
  if p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if not mdame.record_webhook(p_webhook_id, p_queue || '.failed') then
    return 'duplicate';
  end if;
  execute format('select msg_id, read_ct, message from pgmq.%I where msg_id = $1 for update', 'q_' || p_queue) into v_msg using p_msg_id;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  if v_msg.message->>'unit_id' is distinct from p_unit_id::text then
    raise exception '% message % is the job of another unit (%), not of unit %', p_queue, p_msg_id,
      left(coalesce(v_msg.message->>'unit_id', 'none'), 64), p_unit_id using errcode = 'MDS01';
  end if;
  if v_unit.stage in ('published', 'rejected', 'failed') then
    perform pgmq.archive(p_queue, p_msg_id);
    return 'gone';
  end if;
  v_outcome := mdame.retry_or_dead_letter(p_queue, p_queue, p_msg_id, v_msg.read_ct, v_msg.message,
                                          p_unit_id, v_unit.run_id, p_error, p_retriable);
  if v_outcome = 'dead_letter' then
    perform mdame.close_run_if_done(v_unit.run_id);
  end if;
  return v_outcome;
end;
$$;

-- What the Bun workers read instead of pgmq.read: up to p_qty visible messages of a worker queue,
-- oldest first, skipping rows another session is taking, each made invisible for p_vt_s seconds with
-- its read count raised, as pgmq.read does. A message read more often than its stage allows
-- (stage_policies.max_attempts) is not handed out: its worker stopped before reporting every time
-- (killed by the job, say), so it is dead-lettered with that reason, its unit fails and its run
-- closes once nothing else is left. A message whose unit a completion holds right now is skipped
-- (never waited on) and dealt with by a later read.
create function mdame.read_worker_jobs(p_queue text, p_vt_s integer, p_qty integer)
returns table (msg_id bigint, read_ct integer, enqueued_at timestamptz, vt timestamptz, message jsonb)
language plpgsql
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_limit integer;
  v_msg record;
  v_unit mdame.work_units;
  v_unit_id uuid;
begin
  if p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  select p.max_attempts into v_limit from mdame.stage_policies p where p.stage = p_queue;
  for v_msg in execute format(
    'with visible as (
       select q.msg_id from pgmq.%1$I q where q.vt <= clock_timestamp() order by q.msg_id limit $1 for update skip locked
     ), claimed as (
       update pgmq.%1$I q set vt = clock_timestamp() + make_interval(secs => $2), read_ct = q.read_ct + 1
         from visible where q.msg_id = visible.msg_id
       returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message
     )
     select * from claimed order by claimed.msg_id', 'q_' || p_queue)
    using p_qty, p_vt_s
  loop
    if v_msg.read_ct > v_limit then
      v_unit := null;
      begin
        v_unit_id := (v_msg.message->>'unit_id')::uuid;
      exception when invalid_text_representation then
        v_unit_id := null;
      end;
      if v_unit_id is not null then
        select * into v_unit from mdame.work_units u where u.id = v_unit_id for update skip locked;
        if v_unit.id is null and exists (select 1 from mdame.work_units u where u.id = v_unit_id) then
          continue;
        end if;
      end if;
      if v_unit.stage in ('published', 'rejected', 'failed') then
        perform pgmq.archive(p_queue, v_msg.msg_id);
        continue;
      end if;
      perform mdame.retry_or_dead_letter(p_queue, p_queue, v_msg.msg_id, v_msg.read_ct, v_msg.message, v_unit.id, v_unit.run_id,
        format('read %s times without a result (limit %s): the worker stopped before reporting each time', v_msg.read_ct, v_limit),
        false);
      if v_unit.id is not null then
        perform mdame.close_run_if_done(v_unit.run_id);
      end if;
      continue;
    end if;
    msg_id := v_msg.msg_id;
    read_ct := v_msg.read_ct;
    enqueued_at := v_msg.enqueued_at;
    vt := v_msg.vt;
    message := v_msg.message;
    return next;
  end loop;
end;
$$;

select mdame.restrict_function_privileges();
