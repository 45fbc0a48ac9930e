-- Runs that overlap, and deadlines that count work, not waiting.
--
-- 1. start_run holds the environment's lock 'pipeline:<env>' for its orchestration pass only
--    (recovery, intake, dispatch), never for the life of a run: every dimension's run starts when it
--    is due whatever else is in flight. The queued-run machinery goes (start_queued_run,
--    start_run's p_queue_if_busy, the lock renewal in tick, the release in close_run_if_done,
--    abort_run and the take in retry_dead_letter). Dimensions an older version left queued start
--    now, once; the queued status goes.
-- 2. A unit's stage deadline starts again when its work is leased (claim_stage_tasks,
--    read_worker_jobs); the recovery pass never spends an attempt on, nor fails, a unit whose work
--    waits in its queue. The pass and the tick's scan of worker queues are index-backed.

drop function mdame.start_queued_run(uuid);
drop function mdame.has_queued_work(text, uuid, text);
-- trigger_run and trigger_due_runs call start_run; plpgsql binds at the call, so the replacements
-- below are what they call.
drop function mdame.start_run(text, text, text, date, text, text[], boolean);

-- Locks a run held under the old rule: nothing holds one past its pass any more.
delete from mdame.system_locks where name like 'pipeline:%';

-- The stage policy that bounds a unit at a stage: a unit at media waits on its visual_generation
-- jobs (the longest of its work), every other stage on the task of its own name.

create or replace function mdame.unit_stage_policy(p_stage text)
returns mdame.stage_policies
language sql
stable
set search_path = ''
as $$
  select p.* from mdame.stage_policies p where p.stage = case p_stage when 'media' then 'visual_generation' else p_stage end
$$;

comment on function mdame.unit_stage_policy(text) is 'internal: the policy of a unit''s stage, for its deadline and attempts';

revoke all on function mdame.unit_stage_policy(text) from public, anon, authenticated;

-- Where a unit's work in one queue stands: 'leased' when a worker or the stage runner holds a
-- message of it (read, and still invisible), 'waiting' when its messages sit in the queue for a
-- reader (never read, delayed, or back after a lease ran out), null when the queue has none.
-- Found through the queue's index on message->>'unit_id' (migration 20261205100000).

create or replace function mdame.queued_work_state(p_queue text, p_unit_id uuid, p_stage text default null::text)
returns text
language plpgsql
stable
set search_path = ''
as $$
declare
  v text;
begin
  if p_queue not in ('stage_tasks', 'visual_generation', 'render') then
    raise exception 'not a work queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  execute format(
    'select case when bool_or(q.read_ct > 0 and q.vt > clock_timestamp()) then ''leased'' when count(*) > 0 then ''waiting'' end
       from pgmq.%I q where (q.message->>''unit_id'') = $1 and ($2::text is null or q.message->>''stage'' = $2)', 'q_' || p_queue)
    into v using p_unit_id::text, p_stage;
  return v;
end;
$$;

comment on function mdame.queued_work_state(text,uuid,text) is 'internal: the recovery pass''s look at a unit''s queued work';

revoke all on function mdame.queued_work_state(text,uuid,text) from public, anon, authenticated;

-- Moves a unit to a stage and sets when the recovery pass first looks at it: the stage's deadline
-- from now. Until its work is leased that is only a check that the work still exists; each lease
-- (claim_stage_tasks, read_worker_jobs) starts the deadline again, so waiting in a queue never
-- counts against the unit.

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
         stage_deadline = case when p_stage in ('published', 'deferred', 'rejected', 'failed') then null
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

revoke all on function mdame.set_unit_stage(uuid,text,text) from public, anon, authenticated;

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

revoke all on function mdame.recover_overdue_work() from public, anon, authenticated;
grant execute on function mdame.recover_overdue_work() to mdame_engine;
grant execute on function mdame.recover_overdue_work() to service_role;

-- Starts a run, idempotent on its key: a repeated call returns the existing run with created = false.
-- A dimension that a run of this environment and date still running has started with its current
-- configuration is that run's: it is left out, and when that leaves nothing of the scope, the
-- latest such run is returned (created = false), so two triggers of one dimension-day make one run.
-- The call is one orchestration pass of the environment: it holds the lock 'pipeline:<env>' for the
-- pass only (recovery, closing finished runs, intake, dispatch), releasing it before it returns, so
-- a run starts when it is due whatever other runs have in flight; their units are protected by
-- their keys and leases, never by this lock. A pass started meanwhile waits for this one to commit.

create or replace function mdame.start_run(p_idempotency_key text, p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null::text, p_dimensions text[] default null::text[])
returns table(run_id uuid, status text, created boolean)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_dimension mdame.dimensions;
  v_config jsonb;
  v_scope text[];
  v_pass text := 'pass:' || txid_current();
begin
  perform mdame.assert_environment(p_env);
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;
  perform mdame.acquire_lock('pipeline:' || p_env, v_pass, 300);
  -- Recovery first: overdue work of earlier runs is resumed or failed before anything new starts,
  -- and runs it leaves all-terminal are closed; a run another transaction holds (a completion in
  -- progress) is skipped, never waited on: the next pass or tick closes it.
  perform mdame.recover_overdue_work();
  perform mdame.close_run_if_done(r.id)
     from (select p.id from mdame.pipeline_runs p where p.status = 'running' order by p.created_at for no key update skip locked) r;

  select * into v_run from mdame.pipeline_runs r where r.idempotency_key = p_idempotency_key;
  if found then
    perform mdame.release_lock('pipeline:' || p_env, v_pass);
    return query select v_run.id, v_run.status, false;
    return;
  end if;
  v_scope := array(
    select d.id from mdame.dimensions d
     where d.active and (p_dimension is null or d.id = p_dimension) and (p_dimensions is null or d.id = any (p_dimensions))
       and not exists (
         select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
          where r.env = p_env and r.run_date = p_run_date and r.status = 'running' and rd.dimension_id = d.id
            and rd.config_hash = mdame.config_hash(mdame.dimension_config(d)))
     order by d.id);
  if cardinality(v_scope) = 0 then
    select r.* into v_run from mdame.pipeline_runs r
     where r.env = p_env and r.run_date = p_run_date and r.status = 'running'
       and exists (select 1 from mdame.run_dimensions rd join mdame.dimensions d on d.id = rd.dimension_id
                    where rd.run_id = r.id and d.active and (p_dimension is null or d.id = p_dimension)
                      and (p_dimensions is null or d.id = any (p_dimensions)))
     order by r.created_at desc
     limit 1;
    if found then
      perform mdame.release_lock('pipeline:' || p_env, v_pass);
      return query select v_run.id, v_run.status, false;
      return;
    end if;
  end if;

  -- clock_timestamp: runs started in one transaction still order by when each started.
  insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, dimension_filter, created_at)
  values (p_idempotency_key, p_env, p_run_date, p_trigger_kind, p_dimension, clock_timestamp())
  on conflict (idempotency_key) do nothing
  returning * into v_run;

  if not found then
    perform mdame.release_lock('pipeline:' || p_env, v_pass);
    return query select r.id, r.status, false from mdame.pipeline_runs r where r.idempotency_key = p_idempotency_key;
    return;
  end if;

  for v_dimension in select * from mdame.dimensions d where d.id = any (v_scope) order by d.id loop
    v_config := mdame.dimension_config(v_dimension);
    insert into mdame.run_dimensions (run_id, dimension_id, status, config_hash, config)
    values (v_run.id, v_dimension.id, 'ingesting', mdame.config_hash(v_config), v_config);
    perform mdame.enqueue_stage_task('ingest', v_run.id, null, v_dimension.id);
  end loop;

  perform mdame.log_event(v_run.id, null, null, 'run_started',
    jsonb_build_object('trigger_kind', p_trigger_kind, 'run_date', p_run_date, 'dimension', p_dimension,
                       'dimensions', (select jsonb_agg(rd.dimension_id order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = v_run.id)));
  perform mdame.close_run_if_done(v_run.id);
  perform mdame.release_lock('pipeline:' || p_env, v_pass);
  return query select r.id, r.status, true from mdame.pipeline_runs r where r.id = v_run.id;
end;
$$;

revoke all on function mdame.start_run(text,text,text,date,text,text[]) from public, anon, authenticated;
grant execute on function mdame.start_run(text,text,text,date,text,text[]) to mdame_engine;
grant execute on function mdame.start_run(text,text,text,date,text,text[]) to service_role;

-- Closes a running run once every dimension is ingested and every unit is terminal (a unit whose
-- publications wait at stage deferred counts as done: the drain publishes them later). A run holds
-- no lock (start_run holds the environment's lock for its pass only), so closing releases nothing.

create or replace function mdame.close_run_if_done(p_run_id uuid)
returns mdame.pipeline_runs
language plpgsql
set search_path = ''
as $$
declare
  v_run mdame.pipeline_runs;
  v_failed_ingest integer;
  v_published integer;
  v_deferred integer;
  v_units integer;
begin
  -- no key update: child rows written in this transaction hold key-share locks on the run, which
  -- this must not wait on (two units closing at once would deadlock).
  select * into v_run from mdame.pipeline_runs where id = p_run_id for no key update;
  if not found then
    raise exception 'no run %', p_run_id using errcode = 'MDN01';
  end if;
  if v_run.status <> 'running' then
    return v_run;
  end if;
  if exists (select 1 from mdame.run_dimensions where run_id = p_run_id and status = 'ingesting')
     or exists (select 1 from mdame.work_units where run_id = p_run_id and stage not in ('published', 'deferred', 'rejected', 'failed')) then
    return v_run;
  end if;

  select count(*) filter (where status = 'failed') into v_failed_ingest from mdame.run_dimensions where run_id = p_run_id;
  select count(*), count(*) filter (where stage = 'published'), count(*) filter (where stage = 'deferred')
    into v_units, v_published, v_deferred from mdame.work_units where run_id = p_run_id;

  update mdame.pipeline_runs
     set status = case when v_failed_ingest > 0 or (v_units > 0 and v_published + v_deferred = 0 and exists (
                          select 1 from mdame.work_units where run_id = p_run_id and stage = 'failed')) then 'failed'
                       else 'completed' end,
         error = case when v_failed_ingest > 0 then v_failed_ingest || ' dimension(s) failed to ingest' end,
         finished_at = now(),
         updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.log_event(v_run.id, null, null, 'run_' || v_run.status,
    jsonb_build_object('units', v_units, 'published', v_published, 'deferred', v_deferred));
  return v_run;
end;
$$;

comment on function mdame.close_run_if_done(uuid) is 'internal: closes a run when its last unit is terminal';

revoke all on function mdame.close_run_if_done(uuid) from public, anon, authenticated;

-- Today's trigger (manual without a caller key, or the daily cron): starts the dimensions in scope
-- whose current configuration no run of this environment and day has started, keyed by their
-- configurations; returns the day's latest run covering the scope when every one is started already.

create or replace function mdame.trigger_run(p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null::text)
returns table(run_id uuid, status text, created boolean)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_changed jsonb := '{}'::jsonb;
  v_dimension mdame.dimensions;
  v_hash text;
  v_run mdame.pipeline_runs;
begin
  perform mdame.assert_environment(p_env);
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;
  -- Two triggers at once see the same runs of the day: the second finds what the first started.
  perform pg_advisory_xact_lock(hashtextextended('mdame.trigger_run:' || p_env, 0));

  for v_dimension in
    select * from mdame.dimensions d where d.active and (p_dimension is null or d.id = p_dimension) order by d.id
  loop
    v_hash := mdame.config_hash(mdame.dimension_config(v_dimension));
    if not exists (
      select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
       where r.env = p_env and r.run_date = p_run_date and rd.dimension_id = v_dimension.id and rd.config_hash = v_hash) then
      v_changed := v_changed || jsonb_build_object(v_dimension.id, v_hash);
    end if;
  end loop;

  if v_changed = '{}'::jsonb then
    select r.* into v_run from mdame.pipeline_runs r
     where r.env = p_env and r.run_date = p_run_date
       and exists (select 1 from mdame.run_dimensions rd join mdame.dimensions d on d.id = rd.dimension_id
                    where rd.run_id = r.id and d.active and (p_dimension is null or d.id = p_dimension))
     order by r.created_at desc
     limit 1;
    if found then
      perform mdame.close_run_if_done(v_run.id);
      return query select r.id, r.status, false from mdame.pipeline_runs r where r.id = v_run.id;
      return;
    end if;
  end if;

  return query select * from mdame.start_run(mdame.run_key(p_env, p_run_date, p_trigger_kind, v_changed), p_env, p_trigger_kind,
                                             p_run_date, p_dimension, array(select jsonb_object_keys(v_changed)));
end;
$$;

revoke all on function mdame.trigger_run(text,text,date,text) from public, anon, authenticated;
grant execute on function mdame.trigger_run(text,text,date,text) to mdame_engine;
grant execute on function mdame.trigger_run(text,text,date,text) to service_role;

-- The scheduled trigger at p_at: each active dimension whose production start (mdame.run_schedule)
-- has come on its own local date, and which no cron run of this environment and local date has
-- started yet, nor any run of that date with its current configuration, is started. Dimensions due
-- on the same local date start in one run, keyed by sha256(env:date:cron:{dimension: config hash})
-- like every trigger. A repeat finds them started; a missed tick is made up at the next one the
-- same local day; a start time a spring-forward day skips comes with the first local time after it,
-- one a fall-back day repeats starts at its first occurrence. A dimension created after its start
-- time starts the next day.

create or replace function mdame.trigger_due_runs(p_at timestamp with time zone)
returns table(run_id uuid, status text, created boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_env text;
  v_day record;
begin
  select value into v_env from mdame.settings where key = 'env';
  perform mdame.assert_environment(v_env);
  -- The lock trigger_run takes: a manual trigger and this one see each other's runs.
  perform pg_advisory_xact_lock(hashtextextended('mdame.trigger_run:' || v_env, 0));

  for v_day in
    select due.local_date, jsonb_object_agg(due.id, due.hash) as hashes
      from (select d.id, (p_at at time zone s.time_zone)::date as local_date, mdame.config_hash(mdame.dimension_config(d)) as hash
              from mdame.dimensions d cross join lateral mdame.run_schedule(d.publishing) s
             where d.active and (p_at at time zone s.time_zone)::time >= s.start_time
               -- A start that came before the dimension existed is not made up: it starts the next day.
               and d.created_at <= ((p_at at time zone s.time_zone)::date + s.start_time) at time zone s.time_zone) due
     where not exists (
       select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
        where r.env = v_env and r.run_date = due.local_date and rd.dimension_id = due.id
          and (r.trigger_kind = 'cron' or rd.config_hash = due.hash))
     group by due.local_date
     order by due.local_date
  loop
    return query select * from mdame.start_run(mdame.run_key(v_env, v_day.local_date, 'cron', v_day.hashes), v_env, 'cron',
                                                v_day.local_date, null, array(select jsonb_object_keys(v_day.hashes)));
  end loop;
end;
$$;

comment on function mdame.trigger_due_runs(timestamp with time zone) is 'internal: the scheduled trigger at a given time, called by trigger_scheduled_run';

revoke all on function mdame.trigger_due_runs(timestamp with time zone) from public, anon, authenticated;

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

revoke all on function mdame.tick() from public, anon, authenticated;
grant execute on function mdame.tick() to mdame_engine;
grant execute on function mdame.tick() to service_role;

-- Claims up to p_qty visible stage tasks for p_vt_s seconds. Each claim gets its own lease holder
-- (<worker>/<msg_id>/<read_ct>), recorded on the unit: the completion RPCs refuse a caller whose
-- lease another claim has since taken. A claim of the unit's current stage task (voice, at media)
-- starts the unit's stage deadline: time the task waited in the queue never counts against it.

create or replace function mdame.claim_stage_tasks(p_worker text, p_qty integer, p_vt_s integer)
returns table(msg_id bigint, read_ct integer, message jsonb, lease_holder text, completed_result jsonb)
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = 'force_generic_plan'
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
         set lease_holder = v_holder, lease_expires_at = v_msg.vt,
             stage_deadline = case when u.stage = v_msg.message->>'stage' or (u.stage = 'media' and v_msg.message->>'stage' = 'voice')
                                   then clock_timestamp() + make_interval(secs => (mdame.unit_stage_policy(u.stage)).deadline_s)
                                   else u.stage_deadline end
       where u.id = (v_msg.message->>'unit_id')::uuid and u.stage not in ('published', 'deferred', 'rejected', 'failed');
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

revoke all on function mdame.claim_stage_tasks(text,integer,integer) from public, anon, authenticated;
grant execute on function mdame.claim_stage_tasks(text,integer,integer) to mdame_engine;
grant execute on function mdame.claim_stage_tasks(text,integer,integer) to service_role;

-- What the Bun workers read instead of pgmq.read: up to p_qty visible messages of a worker queue,
-- oldest first, skipping rows another session is taking, each made invisible for p_vt_s seconds with
-- its read count raised, as pgmq.read does. A message read more often than its stage allows
-- (stage_policies.max_attempts) is not handed out: its worker stopped before reporting every time
-- (killed by the job, say), so it is dead-lettered with that reason, its unit fails and its run
-- closes once nothing else is left. A message whose unit a completion holds right now is skipped
-- (never waited on) and dealt with by a later read. A message handed out starts its unit's stage
-- deadline (media for visual_generation, render for render): the time it waited in the queue never
-- counts against the unit. A unit a completion holds keeps its deadline (it is finishing).

create or replace function mdame.read_worker_jobs(p_queue text, p_vt_s integer, p_qty integer)
returns table(msg_id bigint, read_ct integer, enqueued_at timestamp with time zone, vt timestamp with time zone, message jsonb)
language plpgsql
security definer
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
    begin
      v_unit_id := (v_msg.message->>'unit_id')::uuid;
    exception when invalid_text_representation then
      v_unit_id := null;
    end;
    if v_msg.read_ct > v_limit then
      v_unit := null;
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
    update mdame.work_units u
       set stage_deadline = clock_timestamp() + make_interval(secs => (mdame.unit_stage_policy(u.stage)).deadline_s)
     where u.id = (select l.id from mdame.work_units l
                    where l.id = v_unit_id and l.stage = case p_queue when 'render' then 'render' else 'media' end
                      for update skip locked);
    msg_id := v_msg.msg_id;
    read_ct := v_msg.read_ct;
    enqueued_at := v_msg.enqueued_at;
    vt := v_msg.vt;
    message := v_msg.message;
    return next;
  end loop;
end;
$$;

revoke all on function mdame.read_worker_jobs(text,integer,integer) from public, anon, authenticated;
grant execute on function mdame.read_worker_jobs(text,integer,integer) to mdame_engine;
grant execute on function mdame.read_worker_jobs(text,integer,integer) to service_role;

-- Takes the named lock for p_holder, or extends it when p_holder already has it. An expired lease
-- may be taken by anyone; a live one held by another holder raises MDL01.

create or replace function mdame.acquire_lock(p_name text, p_holder text, p_lease_s integer)
returns mdame.system_locks
language plpgsql
set search_path = ''
as $$
declare
  v_lock mdame.system_locks;
begin
  insert into mdame.system_locks (name, holder, lease_expires_at)
  values (p_name, p_holder, now() + make_interval(secs => p_lease_s))
  on conflict (name) do nothing
  returning * into v_lock;
  if found then
    return v_lock;
  end if;

  select * into v_lock from mdame.system_locks where name = p_name for update;
  if v_lock.holder <> p_holder and v_lock.lease_expires_at > now() then
    raise exception 'lock % is held by % until %', p_name, v_lock.holder, v_lock.lease_expires_at using errcode = 'MDL01';
  end if;
  update mdame.system_locks
     set holder = p_holder,
         acquired_at = case when holder = p_holder then acquired_at else now() end,
         lease_expires_at = now() + make_interval(secs => p_lease_s)
   where name = p_name
  returning * into v_lock;
  return v_lock;
end;
$$;

comment on function mdame.acquire_lock(text,text,integer) is 'internal: the environment''s orchestration-pass lock, taken by start_run for its pass';

revoke all on function mdame.acquire_lock(text,text,integer) from public, anon, authenticated;

-- Releases the lock if p_holder holds it; true when released, false when it was not the holder's.

create or replace function mdame.release_lock(p_name text, p_holder text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  delete from mdame.system_locks where name = p_name and holder = p_holder;
  return found;
end;
$$;

comment on function mdame.release_lock(text,text) is 'internal: the environment''s orchestration-pass lock, released as start_run''s pass ends';

revoke all on function mdame.release_lock(text,text) from public, anon, authenticated;

-- Operator abort: cancels the run's pending work, fails its unpublished units, and returns the
-- assets only they used so the caller can release them. Published units are left as they are.
-- An already-terminal run is returned unchanged.

create or replace function mdame.abort_run(p_run_id uuid, p_reason text)
returns jsonb
language plpgsql
security definer
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
  perform mdame.log_event(p_run_id, null, null, 'run_rolled_back', jsonb_build_object('reason', v_reason, 'cancelled_units', v_cancelled));
  return jsonb_build_object('run', to_jsonb(v_run), 'cancelled_units', v_cancelled,
                            'released_assets', to_jsonb(array(select distinct unnest(v_assets))));
end;
$$;

revoke all on function mdame.abort_run(uuid,text) from public, anon, authenticated;
grant execute on function mdame.abort_run(uuid,text) to mdame_engine;
grant execute on function mdame.abort_run(uuid,text) to service_role;

-- Sends a dead letter's payload back to its queue once, putting its unit (and, if closed, its run)
-- back to where the work left off. A run an operator rolled back stays rolled back: its unpublished
-- assets were released, so its work is started again by a new run, not by a retry.

create or replace function mdame.retry_dead_letter(p_id bigint)
returns jsonb
language plpgsql
security definer
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
  if v_run.status = 'rolled_back' then
    raise exception 'run % was rolled back by an operator; start a new run instead of retrying its dead letter %', v_run.id, p_id
      using errcode = 'MDS01';
  end if;
  if v_dl.unit_id is not null then
    select * into v_unit from mdame.work_units where id = v_dl.unit_id for update;
    if v_unit.stage = 'published' then
      raise exception 'unit % is already published', v_unit.id using errcode = 'MDS01';
    end if;
  end if;
  if v_run.status <> 'running' then
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

revoke all on function mdame.retry_dead_letter(bigint) from public, anon, authenticated;
grant execute on function mdame.retry_dead_letter(bigint) to mdame_engine;
grant execute on function mdame.retry_dead_letter(bigint) to service_role;

-- Dimensions an older version left waiting for the lock: started now (their ingest enqueued), or,
-- in a run that ended meanwhile, failed like the rest of it.
do $$
declare
  v_row record;
begin
  for v_row in
    update mdame.run_dimensions rd set status = 'ingesting', updated_at = now()
      from mdame.pipeline_runs r
     where r.id = rd.run_id and r.status = 'running' and rd.status = 'queued'
    returning rd.run_id, rd.dimension_id
  loop
    perform mdame.enqueue_stage_task('ingest', v_row.run_id, null, v_row.dimension_id);
    perform mdame.log_event(v_row.run_id, null, null, 'run_started', jsonb_build_object('after_queue', true, 'dimension', v_row.dimension_id));
  end loop;
  update mdame.run_dimensions set status = 'failed', updated_at = now() where status = 'queued';
end;
$$;

alter table mdame.run_dimensions drop constraint run_dimensions_status_check;
alter table mdame.run_dimensions add constraint run_dimensions_status_check
  check ((status = any (array['ingesting'::text, 'ingested'::text, 'failed'::text])));

-- The recovery pass finds a unit's queued work by its unit id (mdame.queued_work_state,
-- cancel_queued_work) and the tick finds worker jobs read past their limit by read count: indexes,
-- so both cost what they find, not the length of the queue.
create index if not exists q_stage_tasks_unit_id_idx on pgmq.q_stage_tasks ((message->>'unit_id'));
create index if not exists q_visual_generation_unit_id_idx on pgmq.q_visual_generation ((message->>'unit_id'));
create index if not exists q_render_unit_id_idx on pgmq.q_render ((message->>'unit_id'));
create index if not exists q_visual_generation_read_ct_idx on pgmq.q_visual_generation (read_ct);
create index if not exists q_render_read_ct_idx on pgmq.q_render (read_ct);

select mdame.restrict_function_privileges();
