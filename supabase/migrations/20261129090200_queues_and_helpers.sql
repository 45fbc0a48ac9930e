-- Queues, stage policies and the small helpers every RPC shares.

select pgmq.create('stage_tasks');
select pgmq.create('visual_generation');
select pgmq.create('render');

insert into mdame.stage_policies (stage, max_attempts, visibility_timeout_s, retry_backoff_s, deadline_s) values
  ('ingest', 3, 60, 10, 600),
  ('script', 3, 120, 10, 900),
  ('safety', 3, 60, 10, 600),
  ('plan', 3, 120, 10, 900),
  ('voice', 3, 180, 15, 900),
  ('visual_generation', 3, 300, 15, 3600),
  ('render', 3, 600, 30, 3600),
  ('publish', 5, 600, 30, 3600);

-- Errors callers act on (mapped once in shared/db/errors.ts):
--   MDE01 environment mismatch   MDL01 lock held by another holder   MDQ01 quota exhausted
--   MDN01 not found              MDS01 wrong state for this call

create function mdame.log_event(p_run_id uuid, p_unit_id uuid, p_stage text, p_kind text, p_detail jsonb default '{}'::jsonb)
returns void
language sql
set search_path = ''
as $$
  insert into mdame.events (run_id, unit_id, stage, kind, detail) values (p_run_id, p_unit_id, p_stage, p_kind, coalesce(p_detail, '{}'::jsonb));
$$;

-- step:<owner>:<index>:<sha256 of the canonical JSON params> (jsonb text is canonical: keys sorted, no duplicates).
create function mdame.step_token(p_owner text, p_step_index integer, p_params jsonb)
returns text
language sql
immutable
set search_path = ''
as $$
  select 'step:' || p_owner || ':' || p_step_index || ':' || encode(sha256(convert_to(p_params::text, 'UTF8')), 'hex');
$$;

create function mdame.stage_index(p_stage text)
returns integer
language sql
immutable
set search_path = ''
as $$
  select case p_stage
    when 'ingest' then 0 when 'script' then 1 when 'safety' then 2 when 'plan' then 3 when 'voice' then 4
    when 'visual_generation' then 5 when 'render' then 6 when 'publish' then 7 end;
$$;

-- Wakes the stage runner: pg_net where installed (Supabase), pg_notify otherwise (the local edge host listens).
create function mdame.wake_stage_runner(p_reason text default 'enqueue')
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_url text;
  v_key text;
begin
  if to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is not null then
    select value into v_url from mdame.settings where key = 'functions_url';
    select value into v_key from mdame.settings where key = 'service_role_key';
    if v_url is null or v_key is null then
      raise exception 'settings functions_url and service_role_key are needed to wake the stage runner through pg_net' using errcode = 'MDN01';
    end if;
    execute 'select net.http_post(url := $1, body := $2, headers := $3)'
      using v_url || '/pipeline/tick', jsonb_build_object('reason', p_reason),
            jsonb_build_object('Authorization', 'Bearer ' || v_key, 'Content-Type', 'application/json');
  else
    perform pg_notify('mdame_wake', p_reason);
  end if;
end;
$$;

create function mdame.enqueue_stage_task(p_stage text, p_run_id uuid, p_unit_id uuid, p_dimension_id text default null)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_owner text := coalesce(p_unit_id::text, p_run_id::text || ':' || p_dimension_id);
  v_message jsonb;
  v_msg_id bigint;
begin
  v_message := jsonb_strip_nulls(jsonb_build_object(
    'stage', p_stage, 'run_id', p_run_id, 'unit_id', p_unit_id, 'dimension_id', p_dimension_id));
  v_message := v_message || jsonb_build_object('step_token', mdame.step_token(v_owner, mdame.stage_index(p_stage), v_message));
  select pgmq.send('stage_tasks', v_message) into v_msg_id;
  perform mdame.wake_stage_runner(p_stage);
  return v_msg_id;
end;
$$;

-- Moves a unit to a stage and starts that stage's deadline clock.
create function mdame.set_unit_stage(p_unit_id uuid, p_stage text, p_error text default null)
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
         stage_deadline = case when p_stage in ('published', 'rejected', 'failed') then null
                               else now() + make_interval(secs => coalesce(
                                 (select deadline_s from mdame.stage_policies where stage = case p_stage when 'media' then 'visual_generation' else p_stage end), 3600)) end,
         error = coalesce(p_error, u.error),
         updated_at = now()
   where u.id = p_unit_id
  returning * into v_unit;
  perform mdame.log_event(v_unit.run_id, v_unit.id, p_stage, 'stage_entered', jsonb_strip_nulls(jsonb_build_object('error', p_error)));
  return v_unit;
end;
$$;

create function mdame.store_step_result(p_step_token text, p_result jsonb)
returns void
language sql
set search_path = ''
as $$
  insert into mdame.step_results (step_token, result) values (p_step_token, p_result) on conflict (step_token) do nothing;
$$;

-- The stored result of a step that already completed, or null.
create function mdame.get_step_result(p_step_token text)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select result from mdame.step_results where step_token = p_step_token;
$$;

-- The one retry rule for every queue: a retriable failure under the stage's attempt limit makes the
-- message visible again after a backoff that grows with each read; anything else is dead-lettered
-- with its payload and last error, archived, and fails its unit explicitly. Returns retry|dead_letter.
create function mdame.retry_or_dead_letter(
  p_queue text, p_stage text, p_msg_id bigint, p_read_ct integer, p_payload jsonb,
  p_unit_id uuid, p_run_id uuid, p_error text, p_retriable boolean)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_policy mdame.stage_policies;
begin
  select * into v_policy from mdame.stage_policies where stage = p_stage;
  if p_unit_id is not null then
    update mdame.work_units set stage_attempts = p_read_ct, error = p_error, updated_at = now() where id = p_unit_id;
  end if;
  if p_retriable and p_read_ct < v_policy.max_attempts then
    perform pgmq.set_vt(p_queue, p_msg_id, v_policy.retry_backoff_s * p_read_ct);
    perform mdame.log_event(p_run_id, p_unit_id, p_stage, 'retry_scheduled', jsonb_build_object('attempt', p_read_ct, 'error', p_error));
    return 'retry';
  end if;
  insert into mdame.dead_letters (queue_name, msg_id, read_ct, payload, last_error, unit_id)
  values (p_queue, p_msg_id, p_read_ct, p_payload, p_error, p_unit_id)
  on conflict (queue_name, msg_id) do nothing;
  perform pgmq.archive(p_queue, p_msg_id);
  if p_unit_id is not null then
    perform mdame.set_unit_stage(p_unit_id, 'failed', p_stage || ': ' || p_error);
  end if;
  perform mdame.log_event(p_run_id, p_unit_id, p_stage, 'dead_lettered', jsonb_build_object('attempts', p_read_ct, 'error', p_error));
  return 'dead_letter';
end;
$$;
