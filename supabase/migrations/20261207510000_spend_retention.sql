-- spend retention: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

CREATE INDEX provider_usage_recorded_idx ON mdame.provider_usage USING btree (recorded_at);

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.housekeeping(p_dry_run boolean DEFAULT false)
 RETURNS TABLE(kind text, due bigint, deleted bigint, storage_keys_queued bigint)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_now timestamp with time zone := mdame.engine_now();
  v_settings jsonb;
  v_batch integer;
  v_cutoff timestamp with time zone;
  v_due bigint;
  v_deleted bigint;
  v_queued bigint;
  v_keys text[];
  v_queue text;
  v_count bigint;
  v_report jsonb := '{}'::jsonb;
begin
  select jsonb_object_agg(s.name, s.value) into v_settings from mdame.housekeeping_settings() s;
  v_batch := (v_settings->>'batch_size')::integer;

  -- Scene cache.
  v_cutoff := v_now - make_interval(days => (v_settings->>'scene_cache_ttl_days')::integer);
  select count(*) into v_due from mdame.scene_cache c
   where c.last_hit_at < v_cutoff
     and not exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                      where s.asset_key = c.asset_key and u.stage <> all (array['published', 'rejected', 'failed']));
  v_deleted := 0;
  v_queued := 0;
  if not p_dry_run then
    with doomed as (
      select c.scene_hash, c.backend from mdame.scene_cache c
       where c.last_hit_at < v_cutoff
         and not exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                          where s.asset_key = c.asset_key and u.stage <> all (array['published', 'rejected', 'failed']))
       order by c.last_hit_at
       limit v_batch
       for update of c skip locked
    ), gone as (
      delete from mdame.scene_cache c using doomed d
       where c.scene_hash = d.scene_hash and c.backend = d.backend
      returning c.asset_key
    )
    select count(*), array_agg(distinct gone.asset_key) into v_deleted, v_keys from gone;
    v_queued := mdame.queue_storage_deletions(v_keys, 'scene');
  end if;
  kind := 'scene_cache'; due := v_due; deleted := v_deleted; storage_keys_queued := v_queued;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted, 'storage_keys_queued', storage_keys_queued));
  return next;

  -- Renders: the unit's video, render_retention_days after its publications were confirmed.
  v_cutoff := v_now - make_interval(days => (v_settings->>'render_retention_days')::integer);
  select count(*) into v_due from mdame.published_assets_due('video', v_cutoff);
  v_deleted := 0;
  v_queued := 0;
  if not p_dry_run then
    with doomed as (
      select u.id from mdame.work_units u
       where u.id in (select mdame.published_assets_due('video', v_cutoff))
       order by u.id
       limit v_batch
       for update of u skip locked
    ), released as (
      update mdame.work_units u set video = u.video || jsonb_build_object('deleted_at', v_now)
        from doomed d where u.id = d.id
      returning u.id, mdame.video_asset_keys(u.video) as keys
    )
    select count(distinct released.id), array_agg(distinct k) filter (where k is not null) into v_deleted, v_keys
      from released left join lateral unnest(released.keys) k on true;
    v_queued := mdame.queue_storage_deletions(v_keys, 'render');
  end if;
  kind := 'renders'; due := v_due; deleted := v_deleted; storage_keys_queued := v_queued;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted, 'storage_keys_queued', storage_keys_queued));
  return next;

  -- Voices: the unit's narration track and its word timings, voice_retention_days after.
  v_cutoff := v_now - make_interval(days => (v_settings->>'voice_retention_days')::integer);
  select count(*) into v_due from mdame.published_assets_due('voice', v_cutoff);
  v_deleted := 0;
  v_queued := 0;
  if not p_dry_run then
    with doomed as (
      select u.id from mdame.work_units u
       where u.id in (select mdame.published_assets_due('voice', v_cutoff))
       order by u.id
       limit v_batch
       for update of u skip locked
    ), released as (
      update mdame.work_units u set voice = u.voice || jsonb_build_object('deleted_at', v_now)
        from doomed d where u.id = d.id
      returning u.voice->>'audio_key' as key
    )
    select count(*), array_agg(distinct released.key) into v_deleted, v_keys from released;
    -- The voice chain stores the word timings beside the track (voice/<key>.json).
    select array_agg(x) into v_keys
      from (select unnest(v_keys) as x
            union select regexp_replace(k, '\.[^./]*$', '') || '.json' from unnest(v_keys) k where k like 'voice/%') both_keys;
    v_queued := mdame.queue_storage_deletions(v_keys, 'voice');
  end if;
  kind := 'voices'; due := v_due; deleted := v_deleted; storage_keys_queued := v_queued;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted, 'storage_keys_queued', storage_keys_queued));
  return next;

  -- LLM cache.
  v_cutoff := v_now - make_interval(days => (v_settings->>'llm_cache_days')::integer);
  select count(*) into v_due from mdame.llm_cache l where l.created_at < v_cutoff;
  v_deleted := 0;
  if not p_dry_run then
    with doomed as (
      select l.cache_key from mdame.llm_cache l where l.created_at < v_cutoff
       order by l.created_at limit v_batch for update skip locked
    )
    delete from mdame.llm_cache l using doomed d where l.cache_key = d.cache_key;
    get diagnostics v_deleted = row_count;
  end if;
  kind := 'llm_cache'; due := v_due; deleted := v_deleted; storage_keys_queued := 0;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted));
  return next;

  -- Events.
  v_cutoff := v_now - make_interval(days => (v_settings->>'events_days')::integer);
  select count(*) into v_due from mdame.events e where e.created_at < v_cutoff;
  v_deleted := 0;
  if not p_dry_run then
    with doomed as (
      select e.id from mdame.events e where e.created_at < v_cutoff
       order by e.id limit v_batch for update skip locked
    )
    delete from mdame.events e using doomed d where e.id = d.id;
    get diagnostics v_deleted = row_count;
  end if;
  kind := 'events'; due := v_due; deleted := v_deleted; storage_keys_queued := 0;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted));
  return next;

  -- Step results whose owner is no longer at work.
  v_cutoff := v_now - make_interval(days => (v_settings->>'step_results_days')::integer);
  select count(*) into v_due from mdame.step_results r
   where r.created_at < v_cutoff and not mdame.step_owner_is_live(r.step_token);
  v_deleted := 0;
  if not p_dry_run then
    with doomed as (
      select r.step_token from mdame.step_results r
       where r.created_at < v_cutoff and not mdame.step_owner_is_live(r.step_token)
       order by r.created_at limit v_batch for update skip locked
    )
    delete from mdame.step_results r using doomed d where r.step_token = d.step_token;
    get diagnostics v_deleted = row_count;
  end if;
  kind := 'step_results'; due := v_due; deleted := v_deleted; storage_keys_queued := 0;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted));
  return next;

  -- pgmq archives: at most batch_size rows of each queue's archive per pass.
  v_cutoff := v_now - make_interval(days => (v_settings->>'pgmq_archive_days')::integer);
  v_due := 0;
  v_deleted := 0;
  for v_queue in select m.queue_name from pgmq.meta m order by m.queue_name loop
    execute format('select count(*) from pgmq.%I where archived_at < $1', 'a_' || v_queue) into v_count using v_cutoff;
    v_due := v_due + v_count;
    if not p_dry_run then
      execute format('delete from pgmq.%1$I a where a.msg_id in (select msg_id from pgmq.%1$I where archived_at < $1 order by msg_id limit $2 for update skip locked)',
                     'a_' || v_queue) using v_cutoff, v_batch;
      get diagnostics v_count = row_count;
      v_deleted := v_deleted + v_count;
    end if;
  end loop;
  kind := 'pgmq_archives'; due := v_due; deleted := v_deleted; storage_keys_queued := 0;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted));
  return next;

  -- Spend records.
  v_cutoff := v_now - make_interval(days => (v_settings->>'spend_days')::integer);
  select count(*) into v_due from mdame.provider_usage u where u.recorded_at < v_cutoff;
  v_deleted := 0;
  if not p_dry_run then
    with doomed as (
      select u.id from mdame.provider_usage u where u.recorded_at < v_cutoff
       order by u.recorded_at, u.id limit v_batch for update skip locked
    )
    delete from mdame.provider_usage u using doomed d where u.id = d.id;
    get diagnostics v_deleted = row_count;
  end if;
  kind := 'provider_usage'; due := v_due; deleted := v_deleted; storage_keys_queued := 0;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted));
  return next;

  -- A pass that changed something is logged; the scheduled passes that find nothing leave no trace.
  if not p_dry_run and exists (select 1 from jsonb_each(v_report) r
                                where (r.value->>'deleted')::bigint > 0 or coalesce((r.value->>'storage_keys_queued')::bigint, 0) > 0) then
    perform mdame.log_event(null, null, 'housekeeping', 'housekeeping_pass', v_report || jsonb_build_object('engine_now', v_now));
  end if;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.housekeeping_settings()
 RETURNS TABLE(name text, value integer, default_value integer, min_value integer, max_value integer)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select d.name, coalesce(s.value::integer, d.default_value), d.default_value, d.min_value, d.max_value
    from (values
      (1, 'scene_cache_ttl_days', 30, 1, 3650),
      (2, 'render_retention_days', 14, 1, 3650),
      (3, 'voice_retention_days', 14, 1, 3650),
      (4, 'llm_cache_days', 30, 1, 3650),
      (5, 'events_days', 90, 1, 3650),
      (6, 'step_results_days', 90, 1, 3650),
      (7, 'pgmq_archive_days', 14, 1, 3650),
      -- At least 35 days: a month's budget reads its whole month.
      (8, 'spend_days', 400, 35, 3650),
      (9, 'batch_size', 500, 1, 10000)
    ) d(ord, name, default_value, min_value, max_value)
    left join mdame.settings s on s.key = 'housekeeping.' || d.name
   order by d.ord;
$function$
;

select mdame.restrict_function_privileges();
