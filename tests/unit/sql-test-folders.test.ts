/**
 * Every function declared in supabase/schemas/mdame/functions has a pgTAP folder of the same name
 * in supabase/tests/database (docs/conventions.md: a folder per RPC, a file per behaviour), unless it is
 * listed below as internal, with the reason it has none.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { paths } from "../../stack/paths.ts";

const FUNCTIONS_DIR = join(paths.root, "supabase", "schemas", "mdame", "functions");
const PGTAP_DIR = join(paths.root, "supabase", "tests", "database");

/** Functions without a pgTAP folder of their own: name -> why, and where they are tested instead. */
const INTERNAL: Record<string, string> = {
  assert_worker_job_owner: "owner rule of complete_visual_job, complete_render_job, fail_worker_job and extend_worker_job; tested through their pgTAP folders",
  assert_worker_message: "guard of complete_render_job and complete_visual_job; tested through their pgTAP folders",
  channel_upload_window: "the rolling 24-hour count of reserve_youtube_call and record_youtube_refusal; tested through their channel-cap files",
  config_hash: "helper of start_run and trigger_run; tested there and against shared/hashing.ts in tests/integration/config-run-keys.test.ts",
  dimension_config: "config a run key hashes; called by start_run and trigger_run, tested through them",
  dimension_config_columns: "column list create_dimension and update_dimension share; tested through them",
  enqueue_stage_task: "helper of every stage RPC that hands work on; tested through them (15 pgTAP files)",
  get_publish_targets: "read by the publish stage (functions/pipeline/stages/publish.ts); tested in set_account_active, no folder of its own yet",
  get_step_result: "read side of step replay, for the Edge Functions' own lookups; tested in the replay_step_result and record_* folders",
  queued_work_state: "helper of recover_overdue_work (waiting, leased or lost work); tested there and in tests/integration/recovery-at-scale.test.ts",
  holds_stage_claim: "lease check of extend_stage_lease, fail_stage_task and replay_step_result; tested through them",
  insert_safety_audit: "writes the audit row for record_safety_verdict, record_topics and reject_unsafe_output; tested there",
  llm_routing_is_valid: "check constraint of dimensions.llm; tested through create_dimension and update_dimension",
  published_assets_due: "the renders and voices rule of housekeeping; tested through the housekeeping pgTAP folder and tests/integration/housekeeping.test.ts",
  lock_unit_at_stage: "lock-and-guard prologue of the stage RPCs; tested through them",
  spend_price: "price lookup of record_provider_usage and check_spend_budget; tested through their pgTAP folders",
  spend_budget_state: "a dimension's spend against its caps, read by check_spend_budget and alert_on_spend_budget; tested through check_spend_budget",
  alert_on_spend_budget: "the 80 % and cap alerts of record_provider_usage and check_spend_budget; tested through their pgTAP folders",
  log_event: "event log writer every RPC calls; tested through them",
  meta_window_room_at: "when an Instagram or Facebook window has room, for reserve_meta_post and record_meta_refusal; tested in their folders",
  mark_publication_published: "the recording step of record_publication and complete_publication; tested in both folders",
  pgmq_queue_has_headers: "catalog probe of archive_stage_task (pgmq 1.5 layout or 1.4's); tested in archive_stage_task/keeps_every_column_of_the_message",
  restrict_function_privileges:
    "run by migrations only: RPCs security definer for mdame_engine and service_role, internal helpers for nobody; the privileges pgTAP folder checks the result",
  reconnect_command: "the reconnect command of mark_account_needs_reconnect and alert_on_needs_reconnect; tested in mark_account_needs_reconnect",
  retry_or_dead_letter: "retry bound of claim_stage_tasks, fail_stage_task, fail_worker_job, read_worker_jobs and tick; tested there",
  run_key: "helper of trigger_run; tested there and against shared/hashing.ts in tests/integration/config-run-keys.test.ts",
  record_content_signature: "the guard's signature stored by record_scene_plan; tested through record_too_similar's and get_content_signatures' folders",
  record_similarity_check: "the guard's check kept by record_scene_plan and record_too_similar; tested through record_too_similar's folder",
  set_unit_stage: "stage transition inside the stage RPCs; tested through them",
  stage_index: "stage order for enqueue_stage_task, record_scene_plan and render_job; tested through them",
  step_token: "step token format shared with shared/hashing.ts; tested in replay_step_result and tests/unit/hashing.test.ts",
  store_step_result: "write side of step replay, called by every record_* RPC; tested through them",
  worker_message: "the worker message assert_worker_message compares against; tested through complete_render_job and complete_visual_job",
  alert_on_dead_letter: "trigger on dead_letters raising dead_letter or quality_gate_failed; tested in alert_producers",
  alert_on_needs_reconnect: "trigger on dimension_accounts raising needs_reconnect; tested in alert_producers",
  alert_on_run_failed: "trigger on pipeline_runs raising run_failed; tested in alert_producers",
  unit_stage_policy: "the policy of a unit's stage for set_unit_stage, claim_stage_tasks, read_worker_jobs and recover_overdue_work; tested through them",
  track_deferred_since: "trigger keeping publications.deferred_since; tested in check_alerts",
  alert_on_locked_publication: "trigger on publications raising upload_locked; tested in alert_producers",
  enqueue_thumbnail_set: "trigger on publications enqueueing the Shorts thumbnail; tested in claim_thumbnail_sets",
  video_analytics_platform: "trigger copying a video_analytics row's platform from its publication; tested in record_counted_video_analytics",
  assert_analytics_window: "the window and period check of record_video_analytics and record_counted_video_analytics; tested in both folders",
  close_analytics_fetch: "the shared end of record_video_analytics and record_counted_video_analytics; tested in both folders",
  video_asset_keys: "the keys of a unit's render (video and cover); tested in housekeeping/a_renders_cover_goes_with_it and storage_key_in_use",
  youtube_bucket_size: "a project's bucket by name for the ledger and ops_quota; tested in reserve_youtube_call/stats_and_thumbnails_take_their_buckets",
  record_alert: "the writing and deduplication of raise_alert and the watchdog; tested in raise_alert's producers and the watchdog folder",
  deliver_database_alerts: "the watchdog's own delivery; tested in the watchdog folder (delivers_its_alerts_through_pg_net)",
  watchdog_at: "the watchdog's checks at a given time; the watchdog folder calls it",
  due_dimensions: "the dimensions due to start, for trigger_due_runs and the watchdog; tested through trigger_scheduled_run and the watchdog folder",
  setting_interval: "a settings key as an interval for the watchdog and the alerts; tested through them",
  format_duration: "durations in the watchdog's messages; tested in the watchdog folder",
  format_utc: "moments in the watchdog's messages; tested in the watchdog folder",
  alert_retry_wait_s: "the retry wait of both alert deliveries; tested in record_alert_attempt and the watchdog folder",
  pg_net_ready:
    "whether pg_net is there, for the wake-ups and the watchdog; tested through wake_stage_runner/without_pg_net_names_what_is_missing and the watchdog folder",
  assert_pg_net_ready: "the wake-ups' refusal without pg_net; tested in wake_stage_runner/without_pg_net_names_what_is_missing",
  vault_secret: "Vault reads of the wake-ups and the watchdog; tested through wake_stage_runner, watchdog and watchdog_status",
  record_tick_ok: "the tick's proof of life; tested in watchdog/tick_failure_pages_once_then_recovers and tests/e2e/watchdog.test.ts",
};

const declared = readdirSync(FUNCTIONS_DIR).filter((f) => f.endsWith(".sql")).map((f) => basename(f, ".sql")).sort();
const hasFolder = (name: string) => existsSync(join(PGTAP_DIR, name)) && readdirSync(join(PGTAP_DIR, name)).some((f) => f.endsWith(".test.sql"));

test("every declared function has a pgTAP folder with tests, or is listed as internal with a reason", () => {
  const missing = declared.filter((name) => !hasFolder(name) && !(name in INTERNAL));
  expect(missing).toEqual([]);
});

test("the internal list names only declared functions that have no pgTAP folder", () => {
  const stale = Object.keys(INTERNAL).filter((name) => !declared.includes(name));
  const tested = Object.keys(INTERNAL).filter((name) => hasFolder(name));
  expect({ stale, tested }).toEqual({ stale: [], tested: [] });
  for (const [name, reason] of Object.entries(INTERNAL)) expect(reason.length, name).toBeGreaterThan(20);
});
