-- "Run now" of the ops dashboard (POST /pipeline/ops/schedules/:name/run): calls at once the
-- function one of the engine's pg_cron jobs calls, by a fixed mapping (engine_job_function), never
-- by executing the job's command text. MDN01 for a name outside the list. Returns the job's name,
-- the function and its result as JSON.

create or replace function mdame.run_engine_job(p_name text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_function text := mdame.engine_job_function(p_name);
  v_result jsonb;
begin
  if v_function is null then
    raise exception 'no engine schedule %', left(coalesce(p_name, '(null)'), 80) using errcode = 'MDN01';
  end if;
  case p_name
    when 'mdame-tick' then v_result := mdame.tick();
    when 'mdame-scheduled-runs' then
      select coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb) into v_result from mdame.trigger_scheduled_run() t;
    when 'mdame-publish-drain' then v_result := to_jsonb(mdame.drain_deferred_publications());
    when 'mdame-alerts' then v_result := mdame.check_alerts();
    when 'mdame-analytics-fetches' then v_result := to_jsonb(mdame.schedule_analytics_fetches());
    when 'mdame-weekly-reports' then v_result := to_jsonb(mdame.queue_weekly_reports());
    when 'mdame-weekly-reports-retry' then v_result := to_jsonb(mdame.wake_due_weekly_reports());
    when 'mdame-adapt-weekly' then v_result := to_jsonb(mdame.mark_adaptation_week_due());
    when 'mdame-housekeeping' then
      select coalesce(jsonb_agg(to_jsonb(h)), '[]'::jsonb) into v_result from mdame.housekeeping(false) h;
    when 'mdame-storage-deletions' then v_result := to_jsonb(mdame.wake_due_storage_deletions());
  end case;
  return jsonb_build_object('name', p_name, 'function', v_function, 'result', v_result, 'ran_at', clock_timestamp());
end;
$$;

revoke all on function mdame.run_engine_job(text) from public, anon, authenticated;
grant execute on function mdame.run_engine_job(text) to mdame_engine;
grant execute on function mdame.run_engine_job(text) to service_role;
