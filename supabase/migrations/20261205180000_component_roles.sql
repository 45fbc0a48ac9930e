-- component roles: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

create table "mdame"."component_roles" (
    "role" name not null,
    "component" text not null,
    "rpcs" text[] not null
      );

alter table "mdame"."component_roles" enable row level security;

CREATE UNIQUE INDEX component_roles_component_key ON mdame.component_roles USING btree (component);

CREATE UNIQUE INDEX component_roles_pkey ON mdame.component_roles USING btree (role);

alter table "mdame"."component_roles" add constraint "component_roles_pkey" PRIMARY KEY using index "component_roles_pkey";

alter table "mdame"."component_roles" add constraint "component_roles_component_key" UNIQUE using index "component_roles_component_key";

alter table "mdame"."component_roles" add constraint "component_roles_role_check" CHECK ((role ~ '^mdame_[a-z_]{1,40}$'::text)) not valid;

alter table "mdame"."component_roles" validate constraint "component_roles_role_check";

alter table "mdame"."component_roles" add constraint "component_roles_rpcs_check" CHECK ((cardinality(rpcs) > 0)) not valid;

alter table "mdame"."component_roles" validate constraint "component_roles_rpcs_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.restrict_function_privileges()
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  f record;
  t record;
  r record;
  v_roles text;
  v_unknown text;
begin
  for r in select role from mdame.component_roles loop
    if not exists (select 1 from pg_roles where rolname = r.role) then
      execute format('create role %I nologin noinherit', r.role);
    end if;
    execute format('revoke temporary on database %I from %I', current_database(), r.role);
    execute format('grant usage on schema mdame to %I', r.role);
  end loop;
  select string_agg(format('%I', role), ', ' order by role) into v_roles from mdame.component_roles;
  v_roles := concat_ws(', ', 'public, anon, authenticated, service_role', v_roles);

  select string_agg(distinct c.role || ': ' || name, ', ') into v_unknown
    from mdame.component_roles c, unnest(c.rpcs) as name
   where not exists (
     select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'mdame' and p.prokind = 'f' and p.proname = name
        and coalesce(obj_description(p.oid, 'pg_proc'), '') not like 'internal:%');
  if v_unknown is not null then
    raise exception 'mdame.component_roles names what is no mdame RPC (%)', v_unknown;
  end if;

  for f in
    select p.oid::regprocedure as sig, p.proname, p.prosecdef,
           coalesce(obj_description(p.oid, 'pg_proc'), '') like 'internal:%' as internal
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'mdame' and p.prokind = 'f'
  loop
    execute format('revoke all on function %s from %s', f.sig, v_roles);
    if f.internal then
      if f.prosecdef then
        execute format('alter function %s security invoker', f.sig);
      end if;
      continue;
    end if;
    if not f.prosecdef then
      execute format('alter function %s security definer', f.sig);
    end if;
    execute format('grant execute on function %s to service_role', f.sig);
    if not exists (select 1 from mdame.component_roles where f.proname = any(rpcs)) then
      raise exception 'no role in mdame.component_roles may execute %: add it to the row of each component that calls it', f.sig;
    end if;
    for r in select role from mdame.component_roles where f.proname = any(rpcs) loop
      execute format('grant execute on function %s to %I', f.sig, r.role);
    end loop;
  end loop;

  for t in
    select c.oid::regclass as rel from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'mdame' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
  loop
    execute format('revoke all on %s from %s', t.rel, v_roles);
  end loop;
end;
$function$
;

insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_scene_plan", "record_script", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb);
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_gpu_worker", "rpcs": ["assert_environment", "claim_scene_generation", "extend_worker_job", "read_worker_jobs", "record_scene_asset", "record_worker_heartbeat", "record_worker_stop", "release_scene_claim"], "component": "gpu-worker"}'::jsonb);
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_render_runner", "rpcs": ["assert_environment", "extend_worker_job", "read_worker_jobs", "record_worker_heartbeat", "record_worker_stop"], "component": "render-runner"}'::jsonb);

select mdame.restrict_function_privileges();
