-- weekly reports wake nobody: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

drop function if exists "mdame"."wake_due_weekly_reports"();

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.queue_weekly_reports(p_at timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_now timestamptz := mdame.engine_now();
  v_at timestamptz := coalesce(p_at, v_now);
  v_added integer;
begin
  insert into mdame.weekly_reports (dimension_id, week_start, next_attempt_at, created_at, updated_at)
  select d.id,
         date_trunc('week', (v_at at time zone coalesce(nullif(d.publishing->>'time_zone', ''), 'UTC'))::date - 1)::date,
         v_now, v_now, v_now
    from mdame.dimensions d
   where d.active
  on conflict (dimension_id, week_start) do nothing;
  get diagnostics v_added = row_count;
  return v_added;
end;
$function$
;

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "approve_review", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "check_spend_budget", "defer_stage_task_for_budget", "get_spend", "list_provider_prices", "record_provider_usage", "reset_provider_price", "set_provider_price", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "expire_reviews", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_content_signatures", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_review", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_reviews", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_meta_refusal", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_counted_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_review", "reject_script", "reject_unit", "reject_unsafe_output", "record_too_similar", "release_meta_post", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_meta_post", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "skip_publication", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb;
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "approve_review", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "check_spend_budget", "defer_stage_task_for_budget", "get_spend", "list_provider_prices", "record_provider_usage", "reset_provider_price", "set_provider_price", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "expire_reviews", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_content_signatures", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_review", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_reviews", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_meta_refusal", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_counted_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_review", "reject_script", "reject_unit", "reject_unsafe_output", "record_too_similar", "release_meta_post", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_meta_post", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "skip_publication", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb);
delete from mdame.engine_jobs t where to_jsonb(t) @> '{"call": "mdame.wake_due_weekly_reports()", "name": "mdame-weekly-reports-retry", "schedule": "*/5 * * * *", "returns_set": false}'::jsonb;

select cron.unschedule('mdame-weekly-reports-retry');
-- pg_cron: every job of mdame.engine_jobs (the minutely tick, scheduled runs, publish drain and
-- alerts; hourly analytics fetches; daily housekeeping; the weekly reports and adaptation; the
-- check for due Storage deletions), scheduled under its name. A job that exists keeps
-- its state (an operator may have paused it) and follows the table's schedule and command; nothing
-- is created twice and no error is swallowed, so a rerun changes nothing.

do $$
declare
  v_job mdame.engine_jobs;
  v_cron record;
begin
  for v_job in select * from mdame.engine_jobs order by name loop
    select j.jobid, j.schedule, j.command into v_cron from cron.job j where j.jobname = v_job.name;
    if v_cron.jobid is null then
      perform cron.schedule(v_job.name, v_job.schedule, v_job.command);
    elsif v_cron.schedule is distinct from v_job.schedule or v_cron.command is distinct from v_job.command then
      perform cron.alter_job(v_cron.jobid, schedule => v_job.schedule, command => v_job.command);
    end if;
  end loop;
end
$$;

select mdame.restrict_function_privileges();
