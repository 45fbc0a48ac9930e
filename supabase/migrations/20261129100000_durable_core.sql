-- The durable core: leased claims of stage tasks, the recovery pass, operator abort and
-- dead-letter retry.

create index work_units_lease_idx on mdame.work_units (lease_holder) where lease_holder is not null;

-- Claims up to p_qty visible stage tasks for p_vt_s seconds. Each claim gets its own lease holder
-- (<worker>/<msg_id>/<read_ct>), recorded on the unit: the completion RPCs refuse a caller whose
-- lease another claim has since taken.
create function mdame.claim_stage_tasks(p_worker text, p_qty integer, p_vt_s integer)
returns table (msg_id bigint, read_ct integer, message jsonb, lease_holder text)
language plpgsql
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_msg record;
  v_holder text;
begin
  for v_msg in select * from pgmq.read('stage_tasks', p_vt_s, p_qty) loop
    v_holder := p_worker || '/' || v_msg.msg_id || '/' || v_msg.read_ct;
    if v_msg.message ? 'unit_id' then
      update mdame.work_units u
         set lease_holder = v_holder, lease_expires_at = v_msg.vt
       where u.id = (v_msg.message->>'unit_id')::uuid and u.stage not in ('published', 'rejected', 'failed');
    end if;
    msg_id := v_msg.msg_id;
    read_ct := v_msg.read_ct;
    message := v_msg.message;
    lease_holder := v_holder;
    return next;
  end loop;
end;
$$;

-- Extends a claim while its holder works (a heartbeat); false when the lease is no longer the caller's.
create function mdame.extend_stage_lease(p_msg_id bigint, p_holder text, p_vt_s integer)
returns boolean
language plpgsql
set search_path = ''
as $$
declare
  v_vt timestamptz;
begin
  select vt into v_vt from pgmq.set_vt('stage_tasks', p_msg_id, p_vt_s);
  if v_vt is null then
    return false;
  end if;
  update mdame.work_units set lease_expires_at = v_vt where lease_holder = p_holder;
  return true;
end;
$$;

create function mdame.has_queued_work(p_queue text, p_unit_id uuid, p_stage text default null)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
declare
  v boolean;
begin
  execute format('select exists (select 1 from pgmq.%I where message->>''unit_id'' = $1 and ($2::text is null or message->>''stage'' = $2))', 'q_' || p_queue)
    into v using p_unit_id::text, p_stage;
  return v;
end;
$$;

-- Recovery pass, at run start and on every tick: a unit past its stage deadline whose work is no
-- longer queued gets that work enqueued again (same message, same step token) while attempts
-- remain, and fails with a reason otherwise; a unit whose work is queued but overdue uses up an
-- attempt too, so nothing waits forever.
create function mdame.recover_overdue_work()
returns jsonb
language plpgsql
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

-- Archives every queued message of a unit, in every queue; returns how many.
create function mdame.cancel_queued_work(p_unit_id uuid)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  v_queue text;
  v_ids bigint[];
  v_count integer := 0;
begin
  foreach v_queue in array array['stage_tasks', 'visual_generation', 'render'] loop
    execute format('select coalesce(array_agg(msg_id), ''{}'') from pgmq.%I where message->>''unit_id'' = $1', 'q_' || v_queue)
      into v_ids using p_unit_id::text;
    if cardinality(v_ids) > 0 then
      perform pgmq.archive(v_queue, v_ids);
      v_count := v_count + cardinality(v_ids);
    end if;
  end loop;
  return v_count;
end;
$$;

-- Operator abort: cancels the run's pending work, fails its unpublished units, and returns the
-- assets only they used so the caller can release them. Published units are left as they are.
-- An already-terminal run is returned unchanged.
create function mdame.abort_run(p_run_id uuid, p_reason text)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_unit mdame.work_units;
  v_cancelled integer := 0;
  v_assets text[] := '{}';
  v_key text;
  v_reason text := coalesce(nullif(trim(p_reason), ''), 'no reason given');
begin
  select * into v_run from mdame.pipeline_runs where id = p_run_id for no key update;
  if not found then
    raise exception 'no run %', p_run_id using errcode = 'MDN01';
  end if;
  if v_run.status <> 'running' then
    return jsonb_build_object('run', to_jsonb(v_run), 'cancelled_units', 0, 'released_assets', '[]'::jsonb);
  end if;

  for v_unit in select * from mdame.work_units where run_id = p_run_id and stage <> 'published' order by id for update loop
    perform mdame.cancel_queued_work(v_unit.id);
    foreach v_key in array array[
      v_unit.voice->>'audio_key',
      regexp_replace(v_unit.voice->>'audio_key', '\.mp3$', '.json'),
      v_unit.video->>'video_key'] loop
      if v_key is not null and not exists (
        select 1 from mdame.work_units w
         where w.stage = 'published' and (w.voice->>'audio_key' = v_key or w.video->>'video_key' = v_key
                                          or regexp_replace(w.voice->>'audio_key', '\.mp3$', '.json') = v_key)) then
        v_assets := v_assets || v_key;
      end if;
    end loop;
    if v_unit.stage not in ('rejected', 'failed') then
      perform mdame.set_unit_stage(v_unit.id, 'failed', 'aborted by operator: ' || v_reason);
      v_cancelled := v_cancelled + 1;
    end if;
  end loop;
  update mdame.run_dimensions set status = 'failed', updated_at = now() where run_id = p_run_id and status = 'ingesting';
  perform mdame.cancel_queued_ingest(p_run_id);

  update mdame.pipeline_runs set status = 'rolled_back', error = 'aborted: ' || v_reason, finished_at = now(), updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.release_lock('pipeline:' || v_run.env, v_run.id::text);
  perform mdame.log_event(p_run_id, null, null, 'run_rolled_back', jsonb_build_object('reason', v_reason, 'cancelled_units', v_cancelled));
  return jsonb_build_object('run', to_jsonb(v_run), 'cancelled_units', v_cancelled,
                            'released_assets', to_jsonb(array(select distinct unnest(v_assets))));
end;
$$;

create function mdame.cancel_queued_ingest(p_run_id uuid)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_ids bigint[];
begin
  select coalesce(array_agg(msg_id), '{}') into v_ids from pgmq.q_stage_tasks
   where message->>'run_id' = p_run_id::text and message->>'stage' = 'ingest';
  if cardinality(v_ids) > 0 then
    perform pgmq.archive('stage_tasks', v_ids);
  end if;
end;
$$;

create function mdame.list_dead_letters(p_limit integer)
returns setof mdame.dead_letters
language sql
stable
set search_path = ''
as $$
  select * from mdame.dead_letters order by id desc limit greatest(1, least(p_limit, 1000));
$$;

-- Sends a dead letter's payload back to its queue once, putting its unit (and, if closed, its run)
-- back to where the work left off.
create function mdame.retry_dead_letter(p_id bigint)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_dl mdame.dead_letters;
  v_unit mdame.work_units;
  v_run mdame.pipeline_runs;
  v_stage text;
  v_msg_id bigint;
begin
  select * into v_dl from mdame.dead_letters where id = p_id for update;
  if not found then
    raise exception 'no dead letter %', p_id using errcode = 'MDN01';
  end if;
  if v_dl.retried_at is not null then
    raise exception 'dead letter % was already retried as message %', p_id, v_dl.retried_msg_id using errcode = 'MDS01';
  end if;
  select * into v_run from mdame.pipeline_runs where id = (v_dl.payload->>'run_id')::uuid for no key update;
  if not found then
    raise exception 'dead letter % names no run', p_id using errcode = 'MDS01';
  end if;
  if v_dl.unit_id is not null then
    select * into v_unit from mdame.work_units where id = v_dl.unit_id for update;
    if v_unit.stage = 'published' then
      raise exception 'unit % is already published', v_unit.id using errcode = 'MDS01';
    end if;
  end if;
  if v_run.status <> 'running' then
    perform mdame.acquire_lock('pipeline:' || v_run.env, v_run.id::text, 3600);
    update mdame.pipeline_runs set status = 'running', error = null, finished_at = null, updated_at = now() where id = v_run.id;
  end if;

  v_stage := case v_dl.queue_name when 'visual_generation' then 'media' when 'render' then 'render' else v_dl.payload->>'stage' end;
  if v_dl.unit_id is not null then
    update mdame.work_units set error = null where id = v_dl.unit_id;
    perform mdame.set_unit_stage(v_dl.unit_id, v_stage);
    if v_dl.queue_name = 'visual_generation' then
      update mdame.scenes set status = 'queued' where id = (v_dl.payload->>'scene_id')::uuid and status <> 'ready';
    end if;
  elsif v_stage = 'ingest' then
    update mdame.run_dimensions set status = 'ingesting', updated_at = now()
     where run_id = v_run.id and dimension_id = v_dl.payload->>'dimension_id';
  end if;
  select pgmq.send(v_dl.queue_name, v_dl.payload) into v_msg_id;
  if v_dl.queue_name = 'visual_generation' then
    update mdame.scenes set msg_id = v_msg_id where id = (v_dl.payload->>'scene_id')::uuid;
  end if;
  if v_dl.queue_name = 'stage_tasks' then
    perform mdame.wake_stage_runner('dead_letter_retry');
  end if;
  update mdame.dead_letters set retried_at = now(), retried_msg_id = v_msg_id where id = p_id;
  perform mdame.log_event(v_run.id, v_dl.unit_id, v_stage, 'dead_letter_retried', jsonb_build_object('dead_letter', p_id, 'msg_id', v_msg_id));
  return jsonb_build_object('dead_letter_id', p_id, 'queue_name', v_dl.queue_name, 'msg_id', v_msg_id,
                            'unit_id', v_dl.unit_id, 'run_id', v_run.id);
end;
$$;

do $$
declare
  f record;
begin
  for f in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'mdame' loop
    execute format('revoke all on function %s from public, anon, authenticated', f.sig);
    execute format('grant execute on function %s to service_role', f.sig);
  end loop;
end
$$;
