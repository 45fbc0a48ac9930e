-- shorts thumbnails and stats bucket: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).
-- The default project keeps its row: the new stats_units_per_day column fills it with its default.

alter table "mdame"."quota_ledger" drop constraint "quota_ledger_bucket_check";

alter table "mdame"."youtube_call_costs" drop constraint "youtube_call_costs_bucket_check";

drop function if exists "mdame"."register_youtube_project"(p_name text, p_oauth_client_id text, p_client_secret_enc text, p_upload_calls_per_day integer, p_api_units_per_day integer, p_analytics_queries_per_day integer);

drop function if exists "mdame"."get_youtube_projects"();

drop function if exists "mdame"."list_locked_publications"(p_limit integer);

  create table "mdame"."thumbnail_sets" (
    "publication_id" uuid not null,
    "cover_key" text not null,
    "status" text not null default 'queued'::text,
    "msg_id" bigint,
    "attempts" integer not null default 0,
    "enqueued_at" timestamp with time zone not null,
    "last_error" text,
    "finished_at" timestamp with time zone
      );

alter table "mdame"."thumbnail_sets" enable row level security;

alter table "mdame"."youtube_projects" add column "stats_units_per_day" integer not null default 10000;

CREATE UNIQUE INDEX thumbnail_sets_pkey ON mdame.thumbnail_sets USING btree (publication_id);

CREATE INDEX thumbnail_sets_queued_idx ON mdame.thumbnail_sets USING btree (publication_id) WHERE (status = 'queued'::text);

alter table "mdame"."thumbnail_sets" add constraint "thumbnail_sets_pkey" PRIMARY KEY using index "thumbnail_sets_pkey";

alter table "mdame"."thumbnail_sets" add constraint "thumbnail_sets_attempts_check" CHECK ((attempts >= 0)) not valid;

alter table "mdame"."thumbnail_sets" validate constraint "thumbnail_sets_attempts_check";

alter table "mdame"."thumbnail_sets" add constraint "thumbnail_sets_cover_key_check" CHECK ((cover_key <> ''::text)) not valid;

alter table "mdame"."thumbnail_sets" validate constraint "thumbnail_sets_cover_key_check";

alter table "mdame"."thumbnail_sets" add constraint "thumbnail_sets_publication_id_fkey" FOREIGN KEY (publication_id) REFERENCES mdame.publications(id) not valid;

alter table "mdame"."thumbnail_sets" validate constraint "thumbnail_sets_publication_id_fkey";

alter table "mdame"."thumbnail_sets" add constraint "thumbnail_sets_status_check" CHECK ((status = ANY (ARRAY['queued'::text, 'set'::text, 'given_up'::text]))) not valid;

alter table "mdame"."thumbnail_sets" validate constraint "thumbnail_sets_status_check";

alter table "mdame"."youtube_projects" add constraint "youtube_projects_stats_units_per_day_check" CHECK ((stats_units_per_day >= 0)) not valid;

alter table "mdame"."youtube_projects" validate constraint "youtube_projects_stats_units_per_day_check";

alter table "mdame"."quota_ledger" add constraint "quota_ledger_bucket_check" CHECK ((bucket = ANY (ARRAY['uploads'::text, 'units'::text, 'analytics'::text, 'stats'::text]))) not valid;

alter table "mdame"."quota_ledger" validate constraint "quota_ledger_bucket_check";

alter table "mdame"."youtube_call_costs" add constraint "youtube_call_costs_bucket_check" CHECK ((bucket = ANY (ARRAY['uploads'::text, 'units'::text, 'analytics'::text, 'stats'::text]))) not valid;

alter table "mdame"."youtube_call_costs" validate constraint "youtube_call_costs_bucket_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.claim_thumbnail_sets(p_qty integer, p_vt_s integer)
 RETURNS TABLE(msg_id bigint, publication_id uuid, attempts integer, external_id text, cover_key text, unit_id uuid, run_id uuid, account_id uuid, dimension_id text, channel_handle text, credentials_enc text, account_ready boolean, engine_now timestamp with time zone)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
declare
  v_msg record;
  v_set mdame.thumbnail_sets;
begin
  if p_qty is null or p_qty < 1 or p_qty > 100 or p_vt_s is null or p_vt_s < 1 or p_vt_s > 3600 then
    raise exception 'claim 1..100 thumbnail sets for 1..3600 seconds (asked % for %)', p_qty, p_vt_s using errcode = '22023';
  end if;
  for v_msg in select m.msg_id, m.message from pgmq.read('thumbnail_sets', p_vt_s, p_qty) m order by m.msg_id
  loop
    v_set := null;
    begin
      select * into v_set from mdame.thumbnail_sets t where t.publication_id = (v_msg.message->>'publication_id')::uuid for update;
    exception when invalid_text_representation then
      v_set := null;
    end;
    if v_set.publication_id is null or v_set.status <> 'queued' then
      perform pgmq.archive('thumbnail_sets', v_msg.msg_id);
      continue;
    end if;
    update mdame.thumbnail_sets t set attempts = t.attempts + 1, msg_id = v_msg.msg_id where t.publication_id = v_set.publication_id;
    return query
      select v_msg.msg_id, p.id, v_set.attempts + 1, p.external_id, v_set.cover_key, u.id, u.run_id, a.id, a.dimension_id,
             a.channel_handle, a.credentials_enc, a.active and a.health_state = 'ok' and a.credentials_enc is not null, mdame.engine_now()
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       where p.id = v_set.publication_id;
  end loop;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.enqueue_thumbnail_set()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_cover text;
  v_msg_id bigint;
begin
  select u.video->>'cover_key' into v_cover from mdame.work_units u
   where u.id = new.unit_id and not (u.video ? 'deleted_at');
  if v_cover is null then
    return new;
  end if;
  insert into mdame.thumbnail_sets (publication_id, cover_key, enqueued_at)
  values (new.id, v_cover, mdame.engine_now())
  on conflict do nothing;
  if not found then
    return new;
  end if;
  select s into v_msg_id from pgmq.send('thumbnail_sets', jsonb_build_object('publication_id', new.id),
    extract(epoch from mdame.setting_interval('thumbnail_first_check', interval '30 seconds'))::integer) as s;
  update mdame.thumbnail_sets set msg_id = v_msg_id where publication_id = new.id;
  return new;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.finish_thumbnail_set(p_publication_id uuid, p_msg_id bigint, p_error text DEFAULT NULL::text, p_delay_s integer DEFAULT NULL::integer, p_give_up boolean DEFAULT false)
 RETURNS mdame.thumbnail_sets
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_set mdame.thumbnail_sets;
  v_unit mdame.work_units;
  v_failed boolean := p_error is not null;
begin
  if v_failed and btrim(p_error) = '' then
    raise exception 'a reason is needed' using errcode = '22023';
  end if;
  if v_failed and not coalesce(p_give_up, false) and (p_delay_s is null or p_delay_s < 1 or p_delay_s > 7 * 86400) then
    raise exception 'the delay must be 1 s .. 7 days, not %', coalesce(p_delay_s::text, '(none)') using errcode = '22023';
  end if;
  select * into v_set from mdame.thumbnail_sets where publication_id = p_publication_id for update;
  if not found then
    raise exception 'no thumbnail set of publication %', p_publication_id using errcode = 'MDN01';
  end if;
  if v_set.status <> 'queued' then
    return v_set;
  end if;
  if v_failed and not coalesce(p_give_up, false) then
    update mdame.thumbnail_sets set last_error = left(p_error, 1000) where publication_id = p_publication_id returning * into v_set;
    perform pgmq.set_vt('thumbnail_sets', p_msg_id, p_delay_s);
    return v_set;
  end if;
  update mdame.thumbnail_sets
     set status = case when v_failed then 'given_up' else 'set' end, finished_at = mdame.engine_now(),
         last_error = case when v_failed then left(p_error, 1000) else last_error end
   where publication_id = p_publication_id
  returning * into v_set;
  perform pgmq.archive('thumbnail_sets', p_msg_id);
  select u.* into v_unit from mdame.work_units u join mdame.publications p on p.unit_id = u.id where p.id = p_publication_id;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'publish', case when v_failed then 'thumbnail_set_given_up' else 'thumbnail_set' end,
    jsonb_build_object('publication_id', p_publication_id, 'cover_key', v_set.cover_key, 'attempts', v_set.attempts)
      || case when v_failed then jsonb_build_object('reason', v_set.last_error) else '{}'::jsonb end);
  return v_set;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.register_youtube_project(p_name text, p_oauth_client_id text, p_client_secret_enc text, p_upload_calls_per_day integer DEFAULT NULL::integer, p_api_units_per_day integer DEFAULT NULL::integer, p_analytics_queries_per_day integer DEFAULT NULL::integer, p_stats_units_per_day integer DEFAULT NULL::integer)
 RETURNS mdame.youtube_projects
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_named mdame.youtube_projects;
  v_client mdame.youtube_projects;
  v_row mdame.youtube_projects;
begin
  select * into v_client from mdame.youtube_projects where oauth_client_id = p_oauth_client_id for update;
  select * into v_named from mdame.youtube_projects where name = p_name for update;
  if p_name is null or p_name !~ '^[a-z0-9][a-z0-9-]{0,39}$' then
    raise exception 'a project name is 1 to 40 lower-case letters, digits or dashes, starting with a letter or digit, not %', coalesce(p_name, '(none)')
      using errcode = '22023';
  end if;
  if p_name = 'default' then
    raise exception 'the project default is the environment''s client (GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET): choose another name'
      using errcode = '22023';
  end if;
  if coalesce(trim(p_oauth_client_id), '') = '' or p_oauth_client_id = 'default' then
    raise exception 'an OAuth client id is needed' using errcode = '22023';
  end if;
  if coalesce(p_client_secret_enc, '') !~ '^v2\.' then
    raise exception 'the client secret must be sealed with the credentials key ring' using errcode = '22023';
  end if;
  if least(p_upload_calls_per_day, p_api_units_per_day, p_analytics_queries_per_day, p_stats_units_per_day) < 0 then
    raise exception 'bucket sizes are zero or more' using errcode = '22023';
  end if;
  if v_named.oauth_client_id is not null then
    raise exception 'a YouTube project named % is registered already (client %): choose another name, or remove it first', p_name, v_named.oauth_client_id
      using errcode = 'MDS01';
  end if;
  if v_client.name is not null then
    raise exception 'the OAuth client % is registered already as project %', p_oauth_client_id, v_client.name using errcode = 'MDS01';
  end if;

  insert into mdame.youtube_projects as p (oauth_client_id, name, client_secret_enc, upload_calls_per_day, api_units_per_day, analytics_queries_per_day,
                                     stats_units_per_day)
  values (p_oauth_client_id, p_name, p_client_secret_enc, coalesce(p_upload_calls_per_day, 100), coalesce(p_api_units_per_day, 10000),
          coalesce(p_analytics_queries_per_day, 10000), coalesce(p_stats_units_per_day, 10000))
  on conflict (oauth_client_id) do update
    set name = excluded.name,
        client_secret_enc = excluded.client_secret_enc,
        upload_calls_per_day = coalesce(p_upload_calls_per_day, p.upload_calls_per_day),
        api_units_per_day = coalesce(p_api_units_per_day, p.api_units_per_day),
        analytics_queries_per_day = coalesce(p_analytics_queries_per_day, p.analytics_queries_per_day),
        stats_units_per_day = coalesce(p_stats_units_per_day, p.stats_units_per_day),
        updated_at = now()
  returning * into v_row;
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.video_asset_keys(p_video jsonb)
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select array(select k from unnest(array[p_video->>'video_key', p_video->>'cover_key']) k where k is not null);
$function$
;

CREATE OR REPLACE FUNCTION mdame.youtube_bucket_size(p_project mdame.youtube_projects, p_bucket text)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select case p_bucket when 'uploads' then p_project.upload_calls_per_day
                       when 'units' then p_project.api_units_per_day
                       when 'stats' then p_project.stats_units_per_day
                       when 'analytics' then p_project.analytics_queries_per_day end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.abort_run(p_run_id uuid, p_reason text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_run mdame.pipeline_runs;
  v_unit mdame.work_units;
  v_cancelled integer := 0;
  v_assets text[] := '{}';
  v_voices text[] := '{}';
  v_videos text[] := '{}';
  v_kept integer := 0;
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
    if exists (select 1 from mdame.publications p where p.unit_id = v_unit.id and p.status in ('published', 'uploading')) then
      v_kept := v_kept + 1;
      continue;
    end if;
    perform mdame.cancel_queued_work(v_unit.id);
    -- Its publications not yet out go with it (none is uploading or published: see above).
    update mdame.publications p set status = 'failed', updated_at = now()
     where p.unit_id = v_unit.id and p.status in ('pending', 'deferred');
    if v_unit.stage not in ('rejected', 'failed') then
      perform mdame.set_unit_stage(v_unit.id, 'failed', 'aborted by operator: ' || v_reason);
      v_cancelled := v_cancelled + 1;
    end if;
    v_voices := v_voices || array[v_unit.voice->>'audio_key', regexp_replace(v_unit.voice->>'audio_key', '\.[^./]*$', '') || '.json'];
    v_videos := v_videos || mdame.video_asset_keys(v_unit.video);
    update mdame.work_units u
       set voice = case when u.voice is null or u.voice ? 'deleted_at' then u.voice else u.voice || jsonb_build_object('deleted_at', now()) end,
           video = case when u.video is null or u.video ? 'deleted_at' then u.video else u.video || jsonb_build_object('deleted_at', now()) end
     where u.id = v_unit.id;
  end loop;
  v_assets := array(select distinct k from unnest(v_voices || v_videos) k where k is not null and not mdame.storage_key_in_use(k) order by k);
  perform mdame.queue_storage_deletions(array(select k from unnest(v_voices) k where k = any (v_assets)), 'voice');
  perform mdame.queue_storage_deletions(array(select k from unnest(v_videos) k where k = any (v_assets)), 'render');
  update mdame.run_dimensions set status = 'failed', updated_at = now() where run_id = p_run_id and status = 'ingesting';
  perform mdame.cancel_queued_ingest(p_run_id);

  update mdame.pipeline_runs set status = 'rolled_back', error = 'aborted: ' || v_reason, finished_at = now(), updated_at = now()
   where id = p_run_id
  returning * into v_run;
  perform mdame.log_event(p_run_id, null, null, 'run_rolled_back',
                          jsonb_build_object('reason', v_reason, 'cancelled_units', v_cancelled, 'kept_units', v_kept, 'released_assets', to_jsonb(v_assets)));
  return jsonb_build_object('run', to_jsonb(v_run), 'cancelled_units', v_cancelled, 'released_assets', to_jsonb(v_assets));
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.get_youtube_projects()
 RETURNS TABLE(oauth_client_id text, name text, client_secret_enc text, upload_calls_per_day integer, api_units_per_day integer, analytics_queries_per_day integer, stats_units_per_day integer, accounts integer, active_accounts integer, planned_uploads_per_day integer, uploads_today integer, created_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return query
  select p.oauth_client_id, p.name, p.client_secret_enc, p.upload_calls_per_day, p.api_units_per_day, p.analytics_queries_per_day, p.stats_units_per_day,
         (select count(*)::integer from mdame.dimension_accounts a
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null),
         (select count(*)::integer from mdame.dimension_accounts a
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null and a.active),
         (select coalesce(sum(d.daily_limit), 0)::integer
            from mdame.dimension_accounts a join mdame.dimensions d on d.id = a.dimension_id
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null and a.active and d.active),
         (select coalesce(sum(l.cost), 0)::integer from mdame.quota_ledger l
           where l.oauth_client_id = p.oauth_client_id and l.bucket = 'uploads' and l.status <> 'released'
             and l.quota_day = mdame.youtube_quota_day(mdame.engine_now())),
         p.created_at
    from mdame.youtube_projects p
   order by p.name is null, p.name, p.oauth_client_id;
end;
$function$
;

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

  -- A pass that changed something is logged; the scheduled passes that find nothing leave no trace.
  if not p_dry_run and exists (select 1 from jsonb_each(v_report) r
                                where (r.value->>'deleted')::bigint > 0 or coalesce((r.value->>'storage_keys_queued')::bigint, 0) > 0) then
    perform mdame.log_event(null, null, 'housekeeping', 'housekeeping_pass', v_report || jsonb_build_object('engine_now', v_now));
  end if;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.list_locked_publications(p_limit integer DEFAULT 20)
 RETURNS TABLE(publication_id uuid, account_id uuid, dimension_id text, channel_handle text, platform text, external_id text, privacy_status text, published_at timestamp with time zone)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select p.id, a.id, a.dimension_id, a.channel_handle, p.platform, p.external_id, p.privacy_status, p.published_at
    from mdame.publications p
    join mdame.dimension_accounts a on a.id = p.account_id
   where p.privacy_status is not null and p.privacy_status is distinct from coalesce(p.privacy_requested, 'public')
   order by p.published_at desc nulls last, p.id
   limit greatest(coalesce(p_limit, 20), 0);
$function$
;

CREATE OR REPLACE FUNCTION mdame.ops_quota()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (
  with clock as (
    select mdame.engine_now() as now, mdame.youtube_quota_day(mdame.engine_now()) as day
  ), buckets as (
    select pr.oauth_client_id, b.bucket, b.ord, mdame.youtube_bucket_size(pr, b.bucket) as size
      from mdame.youtube_projects pr
     cross join unnest(array['uploads', 'units', 'stats', 'analytics']) with ordinality b(bucket, ord)
  ), spent as (
    select l.oauth_client_id, l.bucket,
           coalesce(sum(l.cost) filter (where l.status = 'settled'), 0) as used,
           coalesce(sum(l.cost) filter (where l.status = 'reserved'), 0) as reserved
      from mdame.quota_ledger l, clock
     where l.quota_day = clock.day
     group by l.oauth_client_id, l.bucket
  )
  select jsonb_build_object(
    'quota_day', clock.day,
    'resets_at', mdame.youtube_quota_resets_at(clock.day),
    'youtube', (select coalesce(jsonb_agg(jsonb_build_object(
                  'oauth_client_id', b.oauth_client_id, 'bucket', b.bucket,
                  'used', coalesce(s.used, 0), 'reserved', coalesce(s.reserved, 0), 'limit', b.size,
                  'remaining', b.size - coalesce(s.used, 0) - coalesce(s.reserved, 0)) order by b.oauth_client_id, b.ord), '[]'::jsonb)
                  from buckets b left join spent s on s.oauth_client_id = b.oauth_client_id and s.bucket = b.bucket
                 where b.oauth_client_id = 'default'
                    or exists (select 1 from mdame.dimension_accounts a where a.oauth_client_id = b.oauth_client_id and a.platform = 'youtube')),
    'tiktok', (select coalesce(jsonb_agg(jsonb_build_object(
                 'account_id', a.id, 'channel_handle', a.channel_handle, 'call_kind', rl.call_kind,
                 'used', (select count(*) from mdame.tiktok_calls t
                           where t.account_id = a.id and t.call_kind = rl.call_kind
                             and t.created_at > clock.now - make_interval(secs => rl.per_seconds)),
                 'limit', rl.calls, 'window_s', rl.per_seconds) order by a.dimension_id, a.channel_handle, rl.call_kind), '[]'::jsonb)
                 from mdame.dimension_accounts a cross join mdame.tiktok_rate_limits rl
                where a.platform = 'tiktok'),
    'accounts', (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', a.id, 'dimension_id', a.dimension_id, 'platform', a.platform, 'channel_handle', a.channel_handle,
                   'status', case when a.health_state = 'needs_reconnect' then 'needs_reconnect'
                                  when a.credentials_enc is null then 'not_connected'
                                  when not a.active then 'paused'
                                  else 'active' end,
                   'health_reason', a.health_reason, 'health_since', a.health_since, 'oauth_client_id', a.oauth_client_id,
                   'granted_scopes', to_jsonb(a.granted_scopes),
                   'upload_cap_24h', a.upload_cap_24h,
                   'uploads_24h', case when a.platform = 'youtube'
                     then (select count(*) from mdame.quota_ledger l
                            where l.account_id = a.id and l.entry = 'call' and l.call_kind = 'videos.insert' and l.status <> 'released'
                              and l.created_at > clock.now - interval '24 hours')
                     else (select count(*) from mdame.tiktok_calls t
                            where t.account_id = a.id and t.call_kind = 'video.init' and t.created_at > clock.now - interval '24 hours') end,
                   'upload_cap_full_until', a.upload_cap_full_until) order by a.dimension_id, a.platform, a.channel_handle), '[]'::jsonb)
                   from mdame.dimension_accounts a))
  from clock);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.published_assets_due(p_asset text, p_cutoff timestamp with time zone)
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select u.id
    from mdame.work_units u
   where u.stage = 'published'
     and case p_asset
           when 'video' then u.video ? 'video_key' and not (u.video ? 'deleted_at')
           when 'voice' then u.voice ? 'audio_key' and not (u.voice ? 'deleted_at')
         end
     and not exists (select 1 from mdame.publications p where p.unit_id = u.id and p.status = any (array['pending', 'uploading', 'deferred']))
     -- A cover still to be set as a thumbnail keeps the render (and the cover beside it).
     and (p_asset <> 'video' or not exists (select 1 from mdame.publications p join mdame.thumbnail_sets t on t.publication_id = p.id
                                             where p.unit_id = u.id and t.status = 'queued'))
     and (select max(p.published_at) from mdame.publications p where p.unit_id = u.id and p.status = 'published') < p_cutoff;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_youtube_refusal(p_entry_id uuid, p_reason text)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_entry mdame.quota_ledger;
  v_project mdame.youtube_projects;
  v_account mdame.dimension_accounts;
  v_now timestamptz := mdame.engine_now();
  v_day date := mdame.youtube_quota_day(v_now);
  v_size integer;
  v_used integer;
  v_window record;
  v_not_before timestamptz;
begin
  if p_reason is null or p_reason not in ('quotaExceeded', 'uploadLimitExceeded') then
    raise exception 'unknown YouTube refusal %', p_reason using errcode = '22023';
  end if;
  select * into v_entry from mdame.quota_ledger where id = p_entry_id and entry = 'call';
  if not found then
    raise exception 'no reserved YouTube call %', p_entry_id using errcode = 'MDN01';
  end if;
  select * into v_project from mdame.youtube_projects where oauth_client_id = v_entry.oauth_client_id for update;
  select * into v_account from mdame.dimension_accounts where id = v_entry.account_id for update;
  if (select status from mdame.quota_ledger where id = p_entry_id for update) = 'reserved' then
    update mdame.quota_ledger set status = 'released', settled_at = v_now where id = p_entry_id;
  end if;

  if p_reason = 'quotaExceeded' then
    v_size := mdame.youtube_bucket_size(v_project, v_entry.bucket);
    select coalesce(sum(cost), 0) into v_used from mdame.quota_ledger
     where oauth_client_id = v_project.oauth_client_id and quota_day = v_day and bucket = v_entry.bucket and status <> 'released';
    if v_used < v_size then
      insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, entry, status, settled_at)
      values (v_project.oauth_client_id, v_account.id, null, v_entry.call_kind, v_entry.bucket, v_size - v_used, v_day, 'correction', 'settled', v_now);
    end if;
    v_not_before := mdame.youtube_quota_resets_at(v_day);
  else
    v_window := mdame.channel_upload_window(v_account.id, v_now);
    v_not_before := coalesce(v_window.oldest_ages_out, v_now + interval '24 hours');
    update mdame.dimension_accounts
       set upload_cap_24h = least(upload_cap_24h, greatest(v_window.uploads, 1)),
           upload_cap_full_until = greatest(upload_cap_full_until, v_not_before),
           updated_at = now()
     where id = v_account.id;
  end if;
  perform mdame.log_event(null, null, 'publish', 'youtube_refusal', jsonb_build_object(
    'reason', p_reason, 'account_id', v_account.id, 'channel_handle', v_account.channel_handle,
    'oauth_client_id', v_project.oauth_client_id, 'call_kind', v_entry.call_kind, 'not_before', v_not_before));
  return v_not_before;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.reserve_youtube_call(p_account_id uuid, p_call_kind text, p_publication_id uuid DEFAULT NULL::uuid)
 RETURNS mdame.quota_ledger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_account mdame.dimension_accounts;
  v_project mdame.youtube_projects;
  v_cost mdame.youtube_call_costs;
  v_entry mdame.quota_ledger;
  v_now timestamptz := mdame.engine_now();
  v_day date := mdame.youtube_quota_day(v_now);
  v_size integer;
  v_used integer;
  v_window record;
  v_not_before timestamptz;
begin
  select * into v_cost from mdame.youtube_call_costs where call_kind = p_call_kind;
  if not found then
    raise exception 'no YouTube call kind %', p_call_kind using errcode = 'MDN01';
  end if;
  select * into v_account from mdame.dimension_accounts where id = p_account_id;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  select * into v_project from mdame.youtube_projects where oauth_client_id = v_account.oauth_client_id for update;
  select * into v_account from mdame.dimension_accounts where id = p_account_id for update;
  if p_publication_id is not null then
    if not exists (select 1 from mdame.publications where id = p_publication_id and account_id = p_account_id) then
      raise exception 'no publication % on account %', p_publication_id, p_account_id using errcode = 'MDN01';
    end if;
    select * into v_entry from mdame.quota_ledger
     where publication_id = p_publication_id and call_kind = p_call_kind and entry = 'call' and status <> 'released';
    if found then
      return v_entry;
    end if;
  end if;

  v_size := mdame.youtube_bucket_size(v_project, v_cost.bucket);
  select coalesce(sum(cost), 0) into v_used from mdame.quota_ledger
   where oauth_client_id = v_project.oauth_client_id and quota_day = v_day and bucket = v_cost.bucket and status <> 'released';
  if v_used + v_cost.cost > v_size then
    raise exception 'the % bucket of Google project % is spent for quota day % (% of %); % needs %',
      v_cost.bucket, v_project.oauth_client_id, v_day, v_used, v_size, p_call_kind, v_cost.cost
      using errcode = 'MDQ02',
            detail = jsonb_build_object('not_before', mdame.youtube_quota_resets_at(v_day), 'bucket', v_cost.bucket,
                                        'oauth_client_id', v_project.oauth_client_id)::text;
  end if;

  if p_call_kind = 'videos.insert' then
    v_window := mdame.channel_upload_window(p_account_id, v_now);
    if v_account.upload_cap_full_until > v_now or v_window.uploads >= v_account.upload_cap_24h then
      v_not_before := greatest(v_account.upload_cap_full_until,
                               case when v_window.uploads >= v_account.upload_cap_24h then v_window.oldest_ages_out end);
      raise exception 'channel % reached its upload cap (% in the last 24 hours, cap %)',
        v_account.channel_handle, v_window.uploads, v_account.upload_cap_24h
        using errcode = 'MDQ03',
              detail = jsonb_build_object('not_before', v_not_before, 'cap', v_account.upload_cap_24h, 'uploads', v_window.uploads)::text;
    end if;
  end if;

  insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, created_at)
  values (v_project.oauth_client_id, p_account_id, p_publication_id, p_call_kind, v_cost.bucket, v_cost.cost, v_day, v_now)
  returning * into v_entry;
  return v_entry;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.storage_key_in_use(p_key text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  return exists (select 1 from mdame.scene_cache c where c.asset_key = p_key)
      or exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                  where s.asset_key = p_key and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.scene_generation_claims g
                  where p_key = coalesce(g.asset_key, 'scenes/' || g.scene_hash || '.mp4') and g.lease_until > clock_timestamp())
      or exists (select 1 from mdame.work_units u
                  where u.voice is not null and not (u.voice ? 'deleted_at')
                    and p_key in (u.voice->>'audio_key', regexp_replace(u.voice->>'audio_key', '\.[^./]*$', '') || '.json'))
      or exists (select 1 from mdame.work_units u
                  where u.video is not null and not (u.video ? 'deleted_at') and p_key = any (mdame.video_asset_keys(u.video)))
      or exists (select 1 from mdame.publications p
                  where p.video_key = p_key and p.status = any (array['pending', 'uploading', 'deferred']));
end;
$function$
;

CREATE TRIGGER publications_enqueue_thumbnail AFTER INSERT OR UPDATE OF status ON mdame.publications FOR EACH ROW WHEN (((new.status = 'published'::text) AND (new.platform = 'youtube'::text) AND (new.external_id IS NOT NULL))) EXECUTE FUNCTION mdame.enqueue_thumbnail_set();

comment on function mdame.enqueue_thumbnail_set() is 'internal: trigger enqueueing a published YouTube video''s thumbnail set';
comment on function mdame.video_asset_keys(jsonb) is 'internal: the Storage keys of a unit''s render (the video and its cover)';
comment on function mdame.youtube_bucket_size(mdame.youtube_projects,text) is 'internal: the size of a Google project''s daily YouTube bucket by its name';
comment on table mdame.thumbnail_sets is 'Each published YouTube video''s custom thumbnail (its render''s cover): enqueued once, then set or given up.';

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb;
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb);
insert into mdame.youtube_call_costs ("cost", "bucket", "call_kind") select "cost", "bucket", "call_kind" from jsonb_populate_record(null::mdame.youtube_call_costs, '{"cost": 1, "bucket": "stats", "call_kind": "videos.batchGetStats"}'::jsonb);
insert into mdame.youtube_call_costs ("cost", "bucket", "call_kind") select "cost", "bucket", "call_kind" from jsonb_populate_record(null::mdame.youtube_call_costs, '{"cost": 50, "bucket": "units", "call_kind": "thumbnails.set"}'::jsonb);

select pgmq.create('thumbnail_sets');

select mdame.restrict_function_privileges();
