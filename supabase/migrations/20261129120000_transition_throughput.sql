-- Stage transitions without needless work or serialisation points, measured by
-- scripts/bench/queue-transitions.ts (docs/benchmarks.md has the figures). What changed and why:
--
-- * The stage queue's hot path (claim, heartbeat, send, archive) uses static statements on the
--   queue's pgmq tables, pgmq.q_stage_tasks and pgmq.a_stage_tasks (pgmq's own layout: msg_id,
--   read_ct, enqueued_at, vt, message). pgmq's functions build their SQL with format() and EXECUTE
--   it, so each call is parsed and planned again; PL/pgSQL keeps the plans of static statements for
--   the session. Semantics are pgmq's (oldest visible first, skip locked, read_ct counted, archive
--   keeps the row with archived_at), and the two mix freely: tests/integration/stage-queue.test.ts
--   holds these functions to the same properties as the pgmq conformance suite.
-- * Helpers every transition calls are PL/pgSQL: a SQL-language function called from another
--   function is parsed and planned again by every statement that reaches it.
-- * enqueue_stage_task woke the stage runner on every send. pg_notify takes a database-wide lock at
--   commit and holds it through the WAL flush, so notifying transactions commit one at a time.
-- * record_safety_verdict asked close_run_if_done on the allowed path too, which locks the run row:
--   every unit of a run queued behind that one row. Only a terminal unit can close its run.
-- The claim also bounds what it hands out: a task read more often than its stage allows (its runner
-- died before reporting every time) is dead-lettered instead, and a heartbeat counts only from the
-- current claim (the holder names the read it came from).

-- Makes every function in mdame callable by service_role only (a new function is executable by
-- PUBLIC, and per-schema default privileges cannot take that away). A migration that creates
-- functions ends by calling it.
create function mdame.restrict_function_privileges()
returns void
language plpgsql
set search_path = ''
as $$
declare
  f record;
begin
  for f in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'mdame' loop
    execute format('revoke all on function %s from public, anon, authenticated', f.sig);
    execute format('grant execute on function %s to service_role', f.sig);
  end loop;
end;
$$;

create or replace function mdame.log_event(p_run_id uuid, p_unit_id uuid, p_stage text, p_kind text, p_detail jsonb default '{}'::jsonb)
returns void
language plpgsql
set search_path = ''
as $$
begin
  insert into mdame.events (run_id, unit_id, stage, kind, detail) values (p_run_id, p_unit_id, p_stage, p_kind, coalesce(p_detail, '{}'::jsonb));
end;
$$;

-- step:<owner>:<index>:<sha256 of the canonical JSON params> (jsonb text is canonical: keys sorted, no duplicates).
create or replace function mdame.step_token(p_owner text, p_step_index integer, p_params jsonb)
returns text
language plpgsql
immutable
set search_path = ''
as $$
begin
  return 'step:' || p_owner || ':' || p_step_index || ':' || encode(sha256(convert_to(p_params::text, 'UTF8')), 'hex');
end;
$$;

create or replace function mdame.stage_index(p_stage text)
returns integer
language plpgsql
immutable
set search_path = ''
as $$
begin
  return case p_stage
    when 'ingest' then 0 when 'script' then 1 when 'safety' then 2 when 'plan' then 3 when 'voice' then 4
    when 'visual_generation' then 5 when 'render' then 6 when 'publish' then 7 end;
end;
$$;

create or replace function mdame.store_step_result(p_step_token text, p_result jsonb)
returns void
language plpgsql
set search_path = ''
as $$
begin
  insert into mdame.step_results (step_token, result) values (p_step_token, p_result) on conflict (step_token) do nothing;
end;
$$;

-- Moves a stage task to the archive, as pgmq.archive('stage_tasks', id) does; false when it is not queued.
create function mdame.archive_stage_task(p_msg_id bigint)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  with moved as (
    delete from pgmq.q_stage_tasks where msg_id = p_msg_id
    returning msg_id, read_ct, enqueued_at, vt, message
  )
  insert into pgmq.a_stage_tasks (msg_id, read_ct, enqueued_at, vt, message)
  select msg_id, read_ct, enqueued_at, vt, message from moved;
  return found;
end;
$$;

-- Enqueues a stage task and wakes the stage runner only when it may be idle: when no other stage
-- task is visible. Visible work means the runner was woken for it and drains the queue before it
-- idles (a pass loops until a claim comes back empty); a wake lost in between is covered by the edge
-- host's poll and the minutely tick, both of which look for visible work themselves.
create or replace function mdame.enqueue_stage_task(p_stage text, p_run_id uuid, p_unit_id uuid, p_dimension_id text default null)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_owner text := coalesce(p_unit_id::text, p_run_id::text || ':' || p_dimension_id);
  v_message jsonb;
  v_msg_id bigint;
  v_first_vt timestamptz;
begin
  v_message := jsonb_strip_nulls(jsonb_build_object(
    'stage', p_stage, 'run_id', p_run_id, 'unit_id', p_unit_id, 'dimension_id', p_dimension_id));
  v_message := v_message || jsonb_build_object('step_token', mdame.step_token(v_owner, mdame.stage_index(p_stage), v_message));
  select q.vt into v_first_vt from pgmq.q_stage_tasks q order by q.vt limit 1;
  insert into pgmq.q_stage_tasks (vt, message) values (clock_timestamp(), v_message) returning msg_id into v_msg_id;
  if v_first_vt is null or v_first_vt > clock_timestamp() then
    perform mdame.wake_stage_runner(p_stage);
  end if;
  return v_msg_id;
end;
$$;

-- Claims up to p_qty visible stage tasks (oldest first, skipping rows another session is taking)
-- for p_vt_s seconds. Each claim gets its own lease holder (<worker>/<msg_id>/<read_ct>), recorded
-- on the unit: the completion RPCs refuse a caller whose lease another claim has since taken.
-- A task read more often than its stage allows (stage_policies.max_attempts) is not handed out:
-- its runner stopped before reporting every time, so it is dead-lettered as a final failure.
-- completed_result is the stored result of the task's step token when that step already completed
-- (a duplicate delivery): the runner then asks mdame.replay_step_result instead of running the stage.
-- Generic plans: the claim size is a parameter, and a custom plan per call costs more than the claim.
drop function mdame.claim_stage_tasks(text, integer, integer);
create function mdame.claim_stage_tasks(p_worker text, p_qty integer, p_vt_s integer)
returns table (msg_id bigint, read_ct integer, message jsonb, lease_holder text, completed_result jsonb)
language plpgsql
set search_path = ''
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  v_ids bigint[];
  v_msg record;
  v_holder text;
  v_limit integer;
begin
  select array_agg(s.msg_id) into v_ids from (
    select q.msg_id from pgmq.q_stage_tasks q
     where q.vt <= clock_timestamp()
     order by q.msg_id
     limit p_qty
       for update skip locked) as s;
  if v_ids is null then
    return;
  end if;
  for v_msg in
    with claimed as (
      update pgmq.q_stage_tasks q
         set vt = clock_timestamp() + make_interval(secs => p_vt_s), read_ct = q.read_ct + 1
       where q.msg_id = any (v_ids)
      returning q.msg_id, q.read_ct, q.vt, q.message
    )
    select * from claimed order by claimed.msg_id
  loop
    if v_msg.read_ct > 1 then
      select p.max_attempts into v_limit from mdame.stage_policies p where p.stage = v_msg.message->>'stage';
      if v_msg.read_ct > v_limit then
        begin
          perform mdame.fail_stage_task(v_msg.msg_id, v_msg.message->>'stage', (v_msg.message->>'unit_id')::uuid,
            (v_msg.message->>'run_id')::uuid, v_msg.message->>'dimension_id',
            format('read %s times without a result (limit %s): the runner stopped before reporting each time', v_msg.read_ct, v_limit),
            false);
        exception when invalid_text_representation then
          -- Ids that are not uuids: nothing to fail but the message itself.
          perform mdame.retry_or_dead_letter('stage_tasks', v_msg.message->>'stage', v_msg.msg_id, v_msg.read_ct, v_msg.message,
            null, null, format('read %s times without a result (limit %s), and its ids are not uuids', v_msg.read_ct, v_limit), false);
        end;
        continue;
      end if;
    end if;
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
    completed_result := (select r.result from mdame.step_results r where r.step_token = v_msg.message->>'step_token');
    return next;
  end loop;
end;
$$;

-- Whether p_holder is the current claim of a stage task read p_read_ct times: claim_stage_tasks
-- names each claim <worker>/<msg_id>/<read_ct>, so a claim from an earlier read no longer matches.
create function mdame.holds_stage_claim(p_holder text, p_msg_id bigint, p_read_ct integer)
returns boolean
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_suffix text := '/' || p_msg_id || '/' || p_read_ct;
begin
  return p_holder is not null and length(p_holder) > length(v_suffix) and right(p_holder, length(v_suffix)) = v_suffix;
end;
$$;

-- A heartbeat: extends the claim by p_vt_s seconds from now, only while it is still the caller's:
-- the message has not been read again since (the holder names its read count) and the unit, when
-- there is one, is leased to the caller. False otherwise, and nothing changes.
create or replace function mdame.extend_stage_lease(p_msg_id bigint, p_holder text, p_vt_s integer)
returns boolean
language plpgsql
set search_path = ''
as $$
declare
  v_msg record;
  v_vt timestamptz := clock_timestamp() + make_interval(secs => p_vt_s);
begin
  select q.read_ct, q.message into v_msg from pgmq.q_stage_tasks q where q.msg_id = p_msg_id for update;
  if not found or not mdame.holds_stage_claim(p_holder, p_msg_id, v_msg.read_ct) then
    return false;
  end if;
  if v_msg.message ? 'unit_id' then
    update mdame.work_units set lease_expires_at = v_vt
     where id = (v_msg.message->>'unit_id')::uuid and lease_holder = p_holder;
    if not found then
      return false;
    end if;
  end if;
  update pgmq.q_stage_tasks set vt = v_vt where msg_id = p_msg_id;
  return true;
end;
$$;

create or replace function mdame.record_safety_verdict(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_allowed boolean, p_reasons jsonb, p_classifier text, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'safety', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;
  insert into mdame.safety_audit_logs (run_id, unit_id, dimension_id, subject, subject_text, verdict, reasons, classifier)
  values (v_unit.run_id, v_unit.id, v_unit.dimension_id, 'script', coalesce(v_unit.script->>'narration', ''),
          case when p_allowed then 'allowed' else 'rejected' end, coalesce(p_reasons, '[]'::jsonb), p_classifier);
  perform mdame.store_step_result(p_step_token, jsonb_build_object('allowed', p_allowed, 'reasons', p_reasons));
  if p_allowed then
    v_unit := mdame.set_unit_stage(p_unit_id, 'plan');
    perform mdame.enqueue_stage_task('plan', v_unit.run_id, p_unit_id);
  else
    v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', 'rejected by the safety classifier');
  end if;
  perform mdame.archive_stage_task(p_msg_id);
  if not p_allowed then
    perform mdame.close_run_if_done(v_unit.run_id);
  end if;
  return v_unit;
end;
$$;

-- The lease index served only the old heartbeat, which found the unit by its holder. Without it,
-- and with room left in each page, a claim's lease update is a heap-only update.
drop index mdame.work_units_lease_idx;
alter table mdame.work_units set (fillfactor = 80);

select mdame.restrict_function_privileges();
