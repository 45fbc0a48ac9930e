-- closed loop on instagram and facebook: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

alter table "mdame"."video_analytics" drop constraint "video_analytics_engagement_check";

drop function if exists "mdame"."record_tiktok_video_analytics"(p_publication_id uuid, p_window_days integer, p_period_start date, p_period_end date, p_views bigint, p_likes bigint, p_comments bigint, p_shares bigint, p_msg_id bigint);

drop function if exists "mdame"."claim_analytics_fetches"(p_qty integer, p_vt_s integer);

alter table "mdame"."video_analytics" add column "reach" bigint;

alter table "mdame"."video_analytics" add column "saved" bigint;

alter table "mdame"."video_analytics" add constraint "video_analytics_engagement_check" CHECK (((comments >= 0) AND (shares >= 0) AND (reach >= 0) AND (saved >= 0))) not valid;

alter table "mdame"."video_analytics" validate constraint "video_analytics_engagement_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.record_counted_video_analytics(p_publication_id uuid, p_window_days integer, p_period_start date, p_period_end date, p_views bigint, p_likes bigint, p_comments bigint, p_shares bigint, p_reach bigint DEFAULT NULL::bigint, p_saved bigint DEFAULT NULL::bigint, p_average_view_duration_s numeric DEFAULT NULL::numeric, p_msg_id bigint DEFAULT NULL::bigint)
 RETURNS mdame.video_analytics
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_publication mdame.publications;
  v_row mdame.video_analytics;
begin
  perform mdame.assert_analytics_window(p_window_days, p_period_start, p_period_end);
  if p_views is null or p_likes is null
     or least(p_views, p_likes, coalesce(p_comments, 0), coalesce(p_shares, 0), coalesce(p_reach, 0), coalesce(p_saved, 0)) < 0
     or coalesce(p_average_view_duration_s, 0) < 0 then
    raise exception 'views and likes must be given, and no figure may be negative' using errcode = '22023';
  end if;
  select * into v_publication from mdame.publications where id = p_publication_id;
  if not found or v_publication.platform = 'youtube' then
    raise exception 'no publication % of a platform whose figures are counts', p_publication_id using errcode = 'MDN01';
  end if;

  insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, likes, comments, shares,
                                     reach, saved, average_view_duration_s)
  values (p_publication_id, p_window_days, mdame.engine_now(), p_period_start, p_period_end, p_views, p_likes, p_comments, p_shares,
          p_reach, p_saved, p_average_view_duration_s)
  on conflict (publication_id, window_days) do update
    set fetched_at = excluded.fetched_at, period_start = excluded.period_start, period_end = excluded.period_end,
        views = excluded.views, likes = excluded.likes, comments = excluded.comments, shares = excluded.shares,
        reach = excluded.reach, saved = excluded.saved, average_view_duration_s = excluded.average_view_duration_s
  returning * into v_row;
  perform mdame.close_analytics_fetch(v_publication, p_window_days, p_msg_id, jsonb_strip_nulls(jsonb_build_object(
    'views', p_views, 'likes', p_likes, 'comments', p_comments, 'shares', p_shares, 'reach', p_reach, 'saved', p_saved)));
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.claim_analytics_fetches(p_qty integer, p_vt_s integer)
 RETURNS TABLE(msg_id bigint, read_ct integer, publication_id uuid, platform text, window_days integer, attempts integer, external_id text, published_at timestamp with time zone, unit_id uuid, run_id uuid, account_id uuid, dimension_id text, channel_handle text, channel_id text, oauth_client_id text, credentials_enc text, account_ready boolean, engine_now timestamp with time zone)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  v_msg record;
  v_fetch mdame.analytics_fetches;
begin
  if p_qty is null or p_qty < 1 or p_qty > 100 or p_vt_s is null or p_vt_s < 1 or p_vt_s > 3600 then
    raise exception 'claim 1..100 fetches for 1..3600 seconds (asked % for %)', p_qty, p_vt_s using errcode = '22023';
  end if;
  for v_msg in select m.msg_id, m.read_ct, m.message from pgmq.read('analytics_fetches', p_vt_s, p_qty) m order by m.msg_id
  loop
    v_fetch := null;
    begin
      select * into v_fetch from mdame.analytics_fetches f
       where f.publication_id = (v_msg.message->>'publication_id')::uuid and f.window_days = (v_msg.message->>'window_days')::integer
       for update;
    exception when invalid_text_representation then
      v_fetch := null;
    end;
    if v_fetch.publication_id is null or v_fetch.status <> 'queued' then
      perform pgmq.archive('analytics_fetches', v_msg.msg_id);
      continue;
    end if;
    update mdame.analytics_fetches f set attempts = f.attempts + 1, msg_id = v_msg.msg_id
     where f.publication_id = v_fetch.publication_id and f.window_days = v_fetch.window_days;
    return query
      select v_msg.msg_id, v_msg.read_ct, p.id, p.platform, v_fetch.window_days, v_fetch.attempts + 1, p.external_id, p.published_at,
             u.id, u.run_id, a.id, a.dimension_id, a.channel_handle, a.channel_id, a.oauth_client_id, a.credentials_enc,
             a.active and a.health_state = 'ok' and a.credentials_enc is not null, mdame.engine_now()
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       where p.id = v_fetch.publication_id;
  end loop;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.schedule_analytics_fetches()
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_now timestamptz := mdame.engine_now();
  v_due record;
  v_msg_id bigint;
  v_count integer := 0;
begin
  for v_due in
    select p.id as publication_id, w.days as window_days, p.published_at + make_interval(days => w.days) as due_at
      from mdame.publications p
      join mdame.dimension_accounts a on a.id = p.account_id
     cross join (values (3), (7)) as w(days)
     where (p.platform <> 'tiktok' or p.external_id ~ '^[0-9]+$')
       and p.status = 'published' and p.external_id is not null and p.published_at is not null
       and a.active and a.health_state = 'ok'
       and p.published_at + make_interval(days => w.days) <= v_now
       and not exists (select 1 from mdame.analytics_fetches f where f.publication_id = p.id and f.window_days = w.days)
       and not exists (select 1 from mdame.video_analytics v where v.publication_id = p.id and v.window_days = w.days)
     order by 3, 1, 2
  loop
    insert into mdame.analytics_fetches (publication_id, window_days, due_at, enqueued_at)
    values (v_due.publication_id, v_due.window_days, v_due.due_at, v_now)
    on conflict do nothing;
    if not found then
      continue;
    end if;
    select s into v_msg_id from pgmq.send('analytics_fetches',
      jsonb_build_object('publication_id', v_due.publication_id, 'window_days', v_due.window_days)) as s;
    update mdame.analytics_fetches set msg_id = v_msg_id
     where publication_id = v_due.publication_id and window_days = v_due.window_days;
    v_count := v_count + 1;
  end loop;
  if v_count > 0 then
    perform mdame.wake_stage_runner('analytics');
  end if;
  return v_count;
end;
$function$
;

comment on table mdame.video_analytics is 'A published video''s figures at about day 3 and day 7: YouTube Analytics (views, engagedViews, averageViewDuration, averageViewPercentage, likes, the audienceWatchRatio curve) or a platform''s counts (views, likes, comments, shares, and where reported reach, saved, the average watch time).';

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_meta_refusal", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_tiktok_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_meta_post", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_meta_post", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "skip_publication", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb;
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_meta_refusal", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_counted_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_meta_post", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_meta_post", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "skip_publication", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb);

select mdame.restrict_function_privileges();
