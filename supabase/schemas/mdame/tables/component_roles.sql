-- The database role of each component and the RPCs it may execute, declared once: one row a role.
-- mdame.restrict_function_privileges() (which every migration ends with, and grants.sql runs on the
-- declared schema) creates each role that does not exist yet (nologin: the operator gives it a
-- login and a password, docs/guides/deploy.md), grants it usage on schema mdame and execute on
-- exactly the RPCs of its row, and takes back everything else; it refuses an RPC that no row names
-- and a name that is no RPC. service_role (Supabase's REST API) keeps every RPC.
-- supabase/tests/database/privileges/each_role_executes_its_row.test.sql proves each role's grants
-- equal its row; docs/reference/roles.md says what each may do.
--
-- edge: the Edge Functions (pipeline, worker-callback), the stage runner and the local edge host,
--   which run every stage, the operator routes and the workers' callbacks; mdame doctor, which checks
--   the publisher's own accounts, connects as it too. The only role that reads sealed credentials.
-- render-runner, gpu-worker: pull their jobs (read, extend), report their heartbeat, check the
--   environment; the gpu-worker also claims and records scene assets, and checks and records the
--   spend of its paid visual backends. They finish a job through the worker-callback function (a
--   signed request), never through the database. The render-runner also builds the weekly reports
--   (claim, figures, complete or fail: render-runner/weekly-reports.ts), whose charts do not fit
--   the Edge's memory.

create table mdame.component_roles (
  role name not null,
  component text not null,
  rpcs text[] not null,
  constraint component_roles_pkey primary key (role),
  constraint component_roles_component_key unique (component),
  constraint component_roles_role_check check ((role ~ '^mdame_[a-z_]{1,40}$')),
  constraint component_roles_rpcs_check check ((cardinality(rpcs) > 0))
);

comment on table mdame.component_roles is 'Each component''s database role and the RPCs it may execute (restrict_function_privileges grants from it).';

alter table mdame.component_roles enable row level security;

insert into mdame.component_roles (role, component, rpcs) values
  ('mdame_engine', 'edge', array[
    'abort_run', 'ack_storage_deletion', 'approve_review', 'assert_environment', 'begin_publication',
    'canonical_json', 'check_alerts', 'check_spend_budget', 'defer_stage_task_for_budget', 'get_spend',
    'list_provider_prices', 'record_provider_usage', 'reset_provider_price', 'set_provider_price', 'claim_adaptation_week', 'claim_alerts',
    'claim_analytics_fetches', 'claim_stage_tasks', 'claim_storage_deletions', 'claim_thumbnail_sets',
    'claim_weekly_reports', 'clear_upload_session', 'complete_publication', 'complete_render_job',
    'complete_visual_job', 'complete_weekly_report', 'config_hash', 'connect_account',
    'create_dimension', 'database_usage', 'defer_publication', 'defer_unit_publish',
    'dimension_config', 'drain_deferred_publications', 'engine_now', 'expire_reviews', 'extend_stage_lease',
    'fail_stage_task', 'fail_weekly_report', 'fail_worker_job', 'finish_adaptation_week', 'finish_thumbnail_set',
    'get_accounts', 'get_adaptation_evidence', 'get_content_signatures', 'get_dimensions', 'get_effective_dimension_config',
    'get_llm_cache', 'get_publication', 'get_publish_targets', 'get_queue_setup',
    'get_recorded_environment', 'get_review', 'get_run_analytics', 'get_run_dimension_config', 'get_run_status',
    'get_scene', 'get_scenes', 'get_step_result', 'get_topic_history', 'get_work_unit',
    'get_youtube_client', 'get_youtube_projects', 'housekeeping', 'housekeeping_settings',
    'list_adaptations', 'list_alerts', 'list_dead_letters', 'list_locked_publications',
    'list_reviews', 'list_runs', 'list_schedules', 'llm_routing_is_valid', 'lock_dimension', 'lookup_scene_cache',
    'mark_account_needs_reconnect', 'mark_adaptation_week_due', 'ops_overview', 'ops_queues',
    'ops_quota', 'ops_schedules', 'ops_video', 'ops_videos', 'publishing_is_valid',
    'queue_weekly_reports', 'queues_without_workers', 'raise_alert', 'record_account_scopes',
    'record_adaptation', 'record_alert_attempt', 'record_alert_sent', 'record_cache_lookup',
    'record_meta_refusal', 'record_publication', 'record_publication_privacy', 'record_safety_verdict', 'record_counted_video_analytics',
    'record_scene_plan', 'record_script', 'record_tick_ok', 'record_topics', 'record_upload_session',
    'record_video_analytics', 'record_voice', 'record_youtube_refusal', 'recover_overdue_work',
    'register_youtube_project', 'reject_review', 'reject_script', 'reject_unit', 'reject_unsafe_output', 'record_too_similar',
    'release_meta_post', 'release_youtube_call', 'remove_account', 'remove_youtube_project', 'render_job',
    'replay_step_result', 'reseal_account_credentials', 'reseal_youtube_project_secret',
    'reserve_meta_post', 'reserve_tiktok_call', 'reserve_youtube_call', 'retry_analytics_fetch', 'retry_dead_letter',
    'retry_storage_deletion', 'revert_adaptation', 'run_engine_job', 'run_key',
    'schedule_analytics_fetches', 'set_account_active', 'set_adaptation_pin',
    'set_dimension_active', 'set_engine_clock', 'set_housekeeping_setting', 'settle_youtube_call', 'skip_publication',
    'start_run', 'step_token', 'store_account_credentials', 'store_llm_cache', 'tick',
    'trigger_run', 'trigger_scheduled_run', 'update_dimension', 'wake_due_storage_deletions', 'watchdog_status',
    'wake_next_tick', 'wake_stage_runner', 'weekly_report',
    'youtube_quota_day', 'youtube_quota_resets_at'
  ]),
  ('mdame_gpu_worker', 'gpu-worker', array[
    'assert_environment', 'check_spend_budget', 'claim_scene_generation', 'extend_worker_job', 'read_worker_jobs',
    'record_provider_usage', 'record_scene_asset', 'record_worker_heartbeat', 'record_worker_stop', 'release_scene_claim'
  ]),
  ('mdame_render_runner', 'render-runner', array[
    'assert_environment', 'claim_weekly_reports', 'complete_weekly_report', 'extend_worker_job', 'fail_weekly_report',
    'read_worker_jobs', 'record_worker_heartbeat', 'record_worker_stop', 'weekly_report'
  ])
on conflict do nothing;
