-- "Run now" of the ops dashboard (POST /pipeline/ops/schedules/:name/run): calls at once the
-- function one of the engine's pg_cron jobs calls, as mdame.engine_jobs declares it (its call can
-- only be an mdame function with at most a boolean argument), never the job's command text in
-- cron.job. MDN01 for a name outside the table. Returns the job's name, the function and its
-- result as JSON: a set-returning function's rows as an array.

create or replace function mdame.run_engine_job(p_name text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_job mdame.engine_jobs;
  v_result jsonb;
begin
  select * into v_job from mdame.engine_jobs j where j.name = p_name;
  if v_job.name is null then
    raise exception 'no engine schedule %', left(coalesce(p_name, '(null)'), 80) using errcode = 'MDN01';
  end if;
  if v_job.returns_set then
    execute format('select coalesce(jsonb_agg(to_jsonb(r)), ''[]''::jsonb) from %s r', v_job.call) into v_result;
  else
    execute format('select to_jsonb(%s)', v_job.call) into v_result;
  end if;
  return jsonb_build_object('name', p_name, 'function', v_job.call, 'result', v_result, 'ran_at', clock_timestamp());
end;
$$;
