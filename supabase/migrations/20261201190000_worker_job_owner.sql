-- Every RPC a worker reaches a job through holds one rule for who the job belongs to
-- (assert_worker_job_owner): a render job to its unit, a visual_generation job to one scene of its
-- unit. fail_worker_job compared the unit only, so a failure naming one scene with the message of
-- another scene of the same unit rescheduled or dead-lettered that other scene's job; it now names
-- its scene. assert_worker_message let a message without a scene_id through. extend_worker_job may
-- name the owner of the job it extends.

create or replace function mdame.assert_worker_job_owner(p_queue text, p_msg_id bigint, p_payload jsonb, p_unit_id uuid, p_scene_id uuid default null::uuid)
returns void
language plpgsql
stable
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_scene mdame.scenes;
begin
  if p_queue = 'visual_generation' and p_scene_id is null then
    raise exception 'a visual_generation job belongs to a scene: name the scene (scene_id)' using errcode = '22023';
  elsif p_queue = 'render' and p_scene_id is not null then
    raise exception 'a render job belongs to a unit, not to a scene' using errcode = '22023';
  elsif p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id;
  if p_payload->>'unit_id' is distinct from p_unit_id::text
     or (p_payload ? 'run_id' and p_payload->>'run_id' is distinct from v_unit.run_id::text)
     or (p_payload ? 'dimension_id' and p_payload->>'dimension_id' is distinct from v_unit.dimension_id) then
    raise exception '% message % is the job of unit % (run %), not of unit %', p_queue, p_msg_id,
      left(coalesce(p_payload->>'unit_id', 'none'), 64), left(coalesce(p_payload->>'run_id', 'none'), 64), p_unit_id
      using errcode = 'MDS01';
  end if;
  if p_queue = 'render' then
    return;
  end if;
  select * into v_scene from mdame.scenes where id = p_scene_id;
  if v_scene.unit_id is distinct from p_unit_id
     or p_payload->>'scene_id' is distinct from p_scene_id::text
     or p_payload->>'scene_index' is distinct from v_scene.scene_index::text then
    raise exception 'visual_generation message % is the job of scene % (index %) of unit %, not of scene % (index %)', p_msg_id,
      left(coalesce(p_payload->>'scene_id', 'none'), 64), left(coalesce(p_payload->>'scene_index', 'none'), 64),
      left(coalesce(p_payload->>'unit_id', 'none'), 64), p_scene_id, coalesce(v_scene.scene_index::text, 'none')
      using errcode = 'MDS01';
  end if;
end;
$$;

comment on function mdame.assert_worker_job_owner(text,bigint,jsonb,uuid,uuid) is 'internal: the owner check of a worker job message, inside the worker RPCs';

revoke all on function mdame.assert_worker_job_owner(text,bigint,jsonb,uuid,uuid) from public, anon, authenticated;

create or replace function mdame.assert_worker_message(p_queue text, p_msg_id bigint, p_unit_id uuid, p_scene_id uuid default null::uuid)
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
  perform mdame.assert_worker_job_owner(p_queue, p_msg_id, v_msg.payload, p_unit_id, p_scene_id);
  return v_msg.queued;
end;
$$;

comment on function mdame.assert_worker_message(text,bigint,uuid,uuid) is 'internal: checks a worker job message inside the completion RPCs';

revoke all on function mdame.assert_worker_message(text,bigint,uuid,uuid) from public, anon, authenticated;

drop function mdame.fail_worker_job(text,bigint,uuid,text,boolean,text);

create or replace function mdame.fail_worker_job(p_queue text, p_msg_id bigint, p_unit_id uuid, p_error text, p_retriable boolean, p_webhook_id text, p_scene_id uuid default null::uuid)
returns text
language plpgsql
security definer
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
  if p_queue = 'visual_generation' and p_scene_id is null then
    raise exception 'a visual_generation failure names its scene (scene_id)' using errcode = '22023';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if p_scene_id is not null and not exists (select 1 from mdame.scenes where id = p_scene_id) then
    raise exception 'no scene %', p_scene_id using errcode = 'MDN01';
  end if;
  if not mdame.record_webhook(p_webhook_id, p_queue || '.failed') then
    return 'duplicate';
  end if;
  execute format('select msg_id, read_ct, message from pgmq.%I where msg_id = $1 for update', 'q_' || p_queue) into v_msg using p_msg_id;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  perform mdame.assert_worker_job_owner(p_queue, p_msg_id, v_msg.message, p_unit_id, p_scene_id);
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

revoke all on function mdame.fail_worker_job(text,bigint,uuid,text,boolean,text,uuid) from public, anon, authenticated;
grant execute on function mdame.fail_worker_job(text,bigint,uuid,text,boolean,text,uuid) to mdame_engine;
grant execute on function mdame.fail_worker_job(text,bigint,uuid,text,boolean,text,uuid) to service_role;

drop function mdame.extend_worker_job(text,bigint,integer);

create or replace function mdame.extend_worker_job(p_queue text, p_msg_id bigint, p_vt_s integer, p_unit_id uuid default null::uuid, p_scene_id uuid default null::uuid)
returns setof bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_msg record;
begin
  if p_queue is null or p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', p_queue using errcode = '22023';
  end if;
  if p_vt_s is null or p_vt_s < 1 or p_vt_s > 86400 then
    raise exception 'visibility timeout out of range (1-86400 s): %', p_vt_s using errcode = '22023';
  end if;
  if p_unit_id is null and p_scene_id is not null then
    raise exception 'a heartbeat that names a scene names its unit too' using errcode = '22023';
  end if;
  if p_unit_id is not null then
    select * into v_msg from mdame.worker_message(p_queue, p_msg_id);
    if not v_msg.queued then
      return;
    end if;
    perform mdame.assert_worker_job_owner(p_queue, p_msg_id, v_msg.payload, p_unit_id, p_scene_id);
  end if;
  return query select s.msg_id from pgmq.set_vt(p_queue, p_msg_id, p_vt_s) s;
end;
$$;

revoke all on function mdame.extend_worker_job(text,bigint,integer,uuid,uuid) from public, anon, authenticated;
grant execute on function mdame.extend_worker_job(text,bigint,integer,uuid,uuid) to mdame_engine;
grant execute on function mdame.extend_worker_job(text,bigint,integer,uuid,uuid) to service_role;

select mdame.restrict_function_privileges();
