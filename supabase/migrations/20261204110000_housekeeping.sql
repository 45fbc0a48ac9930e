-- Retention and housekeeping (docs/retention.md): scene cache entries expire scene_cache_ttl_days
-- after they were made or last hit; renders and voices go render/voice_retention_days after their
-- publications were confirmed; the LLM cache, events, step results and pgmq archives are pruned by
-- age. A daily pg_cron pass in bounded batches; Storage objects go through an outbox the pipeline's
-- tick drains (Storage refuses deletes from SQL).

alter table mdame.scene_cache add column last_hit_at timestamp with time zone not null default now();

comment on column mdame.scene_cache.last_hit_at is 'When the entry was made or last hit (engine clock): it expires scene_cache_ttl_days after (mdame.housekeeping).';

create index scene_cache_asset_key_idx on mdame.scene_cache (asset_key);

create index scene_cache_last_hit_idx on mdame.scene_cache (last_hit_at);

create index scenes_asset_key_idx on mdame.scenes (asset_key) where (asset_key is not null);

create table mdame.storage_deletions (
  key text not null,
  kind text not null,
  queued_at timestamp with time zone not null default now(),
  not_before timestamp with time zone not null,
  attempts integer not null default 0,
  last_error text,
  constraint storage_deletions_pkey primary key (key),
  constraint storage_deletions_key_check check (((length(key) >= 1) and (length(key) <= 300))),
  constraint storage_deletions_kind_check check ((kind = any (array['scene'::text, 'render'::text, 'voice'::text]))),
  constraint storage_deletions_attempts_check check ((attempts >= 0))
);

create index storage_deletions_due_idx on mdame.storage_deletions (not_before);

alter table mdame.storage_deletions enable row level security;

-- The retention settings in effect (docs/retention.md): each one's value, stored in mdame.settings
-- under housekeeping.<name> when the operator set it, its safe default otherwise, and the range
-- mdame.set_housekeeping_setting accepts.

create or replace function mdame.housekeeping_settings()
returns table(name text, value integer, default_value integer, min_value integer, max_value integer)
language sql
stable security definer
set search_path = ''
as $$
  select d.name, coalesce(s.value::integer, d.default_value), d.default_value, d.min_value, d.max_value
    from (values
      (1, 'scene_cache_ttl_days', 30, 1, 3650),
      (2, 'render_retention_days', 14, 1, 3650),
      (3, 'voice_retention_days', 14, 1, 3650),
      (4, 'llm_cache_days', 30, 1, 3650),
      (5, 'events_days', 90, 1, 3650),
      (6, 'step_results_days', 90, 1, 3650),
      (7, 'pgmq_archive_days', 14, 1, 3650),
      (8, 'batch_size', 500, 1, 10000)
    ) d(ord, name, default_value, min_value, max_value)
    left join mdame.settings s on s.key = 'housekeeping.' || d.name
   order by d.ord;
$$;

revoke all on function mdame.housekeeping_settings() from public, anon, authenticated;
grant execute on function mdame.housekeeping_settings() to mdame_engine;
grant execute on function mdame.housekeeping_settings() to service_role;

-- Sets one retention setting (docs/retention.md); a null value puts it back on its default. An
-- unknown name or a value outside the setting's range is refused (MDV01). Returns every setting.

create or replace function mdame.set_housekeeping_setting(p_name text, p_value integer)
returns table(name text, value integer, default_value integer, min_value integer, max_value integer)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_setting record;
begin
  select * into v_setting from mdame.housekeeping_settings() s where s.name = p_name;
  if not found then
    raise exception 'no housekeeping setting %', coalesce(p_name, '(null)') using errcode = 'MDV01';
  end if;
  if p_value is null then
    delete from mdame.settings where key = 'housekeeping.' || p_name;
  elsif p_value not between v_setting.min_value and v_setting.max_value then
    raise exception 'housekeeping setting % takes % to %, not %', p_name, v_setting.min_value, v_setting.max_value, p_value
      using errcode = 'MDV01';
  else
    insert into mdame.settings (key, value, updated_at) values ('housekeeping.' || p_name, p_value::text, now())
    on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at;
  end if;
  return query select * from mdame.housekeeping_settings();
end;
$$;

revoke all on function mdame.set_housekeeping_setting(text,integer) from public, anon, authenticated;
grant execute on function mdame.set_housekeeping_setting(text,integer) to mdame_engine;
grant execute on function mdame.set_housekeeping_setting(text,integer) to service_role;

-- Whether anything may still read the Storage object at p_key: keys are content-addressed and may
-- be shared, so a key housekeeping let go for one row survives while any of these holds it:
-- a scene cache entry; a scene of a live (non-terminal) unit; a generation claim of the scene
-- still leased (a worker may be uploading it); a unit's voice track (or its word timings) or
-- video not yet released by housekeeping (voice/video without deleted_at); a publication not yet
-- confirmed (pending, uploading, deferred).

create or replace function mdame.storage_key_in_use(p_key text)
returns boolean
language sql
stable
set search_path = ''
as $$
  select exists (select 1 from mdame.scene_cache c where c.asset_key = p_key)
      or exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                  where s.asset_key = p_key and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.scene_generation_claims g
                  where p_key = 'scenes/' || g.scene_hash || '.mp4' and g.lease_until > clock_timestamp())
      or exists (select 1 from mdame.work_units u
                  where u.voice is not null and not (u.voice ? 'deleted_at')
                    and p_key in (u.voice->>'audio_key', regexp_replace(u.voice->>'audio_key', '\.[^./]*$', '') || '.json'))
      or exists (select 1 from mdame.work_units u
                  where u.video is not null and not (u.video ? 'deleted_at') and u.video->>'video_key' = p_key)
      or exists (select 1 from mdame.publications p
                  where p.video_key = p_key and p.status = any (array['pending', 'uploading', 'deferred']));
$$;

comment on function mdame.storage_key_in_use(text) is 'internal: whether a Storage key is still needed, for housekeeping and the deletion outbox';

revoke all on function mdame.storage_key_in_use(text) from public, anon, authenticated;

-- Records in the deletion outbox the keys no longer in use (mdame.storage_key_in_use); a key in
-- use, or queued already, is left as it is. Returns how many it queued.

create or replace function mdame.queue_storage_deletions(p_keys text[], p_kind text)
returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_count bigint;
begin
  insert into mdame.storage_deletions (key, kind, not_before)
  select distinct k, p_kind, mdame.engine_now() from unnest(coalesce(p_keys, array[]::text[])) k
   where k is not null and not mdame.storage_key_in_use(k)
  on conflict (key) do nothing;
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;

comment on function mdame.queue_storage_deletions(text[],text) is 'internal: the deletion outbox''s entry point for housekeeping';

revoke all on function mdame.queue_storage_deletions(text[],text) from public, anon, authenticated;

-- Whether a step token's owner (step:<owner>:...: a unit, a scene or a run id) is still at work:
-- a unit not in a terminal stage, a scene of such a unit, or a running run. Its step results may
-- be replayed, so housekeeping keeps them.

create or replace function mdame.step_owner_is_live(p_step_token text)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
declare
  v_owner text := split_part(p_step_token, ':', 2);
  v_id uuid;
begin
  if v_owner !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return false;
  end if;
  v_id := v_owner::uuid;
  return exists (select 1 from mdame.work_units u where u.id = v_id and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                  where s.id = v_id and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.pipeline_runs r where r.id = v_id and r.status = 'running');
end;
$$;

comment on function mdame.step_owner_is_live(text) is 'internal: housekeeping keeps the step results of live owners';

revoke all on function mdame.step_owner_is_live(text) from public, anon, authenticated;

-- One housekeeping pass (docs/retention.md), on the engine's clock, each kind in a bounded batch
-- (batch_size rows; what is left goes on the next pass) taken with skip locked, so it never waits
-- on, or holds up, the pipeline. Returns per kind how many rows qualify (due) and how many this
-- pass deleted, and how many Storage keys it queued for deletion (mdame.storage_deletions, drained
-- by the pipeline's tick). p_dry_run: counts only, changes nothing.
--
-- - scene_cache: entries not made or hit for scene_cache_ttl_days (a hit pushes last_hit_at),
--   unless a scene of a live unit uses the clip; their clips are queued once nothing else uses them.
-- - renders / voices: the unit's video / voice track render_retention_days / voice_retention_days
--   after the last of its publications was confirmed published (unit stage published, none of its
--   publications pending, uploading or deferred). The unit keeps its record (the key, marked with
--   deleted_at), its quality measures and its publications; the objects are queued.
-- - llm_cache, events, step_results (those whose owner is no longer at work): older than their days.
-- - pgmq_archives: archived messages of every queue older than pgmq_archive_days.

create or replace function mdame.housekeeping(p_dry_run boolean default false)
returns table(kind text, due bigint, deleted bigint, storage_keys_queued bigint)
language plpgsql
security definer
set search_path = ''
as $$
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
  select count(*) into v_due from mdame.work_units u
   where u.stage = 'published' and u.video ? 'video_key' and not (u.video ? 'deleted_at')
     and not exists (select 1 from mdame.publications p where p.unit_id = u.id and p.status = any (array['pending', 'uploading', 'deferred']))
     and (select max(p.published_at) from mdame.publications p where p.unit_id = u.id and p.status = 'published') < v_cutoff;
  v_deleted := 0;
  v_queued := 0;
  if not p_dry_run then
    with doomed as (
      select u.id from mdame.work_units u
       where u.stage = 'published' and u.video ? 'video_key' and not (u.video ? 'deleted_at')
         and not exists (select 1 from mdame.publications p where p.unit_id = u.id and p.status = any (array['pending', 'uploading', 'deferred']))
         and (select max(p.published_at) from mdame.publications p where p.unit_id = u.id and p.status = 'published') < v_cutoff
       order by u.id
       limit v_batch
       for update of u skip locked
    ), released as (
      update mdame.work_units u set video = u.video || jsonb_build_object('deleted_at', v_now)
        from doomed d where u.id = d.id
      returning u.video->>'video_key' as key
    )
    select count(*), array_agg(distinct released.key) into v_deleted, v_keys from released;
    v_queued := mdame.queue_storage_deletions(v_keys, 'render');
  end if;
  kind := 'renders'; due := v_due; deleted := v_deleted; storage_keys_queued := v_queued;
  v_report := v_report || jsonb_build_object(kind, jsonb_build_object('due', due, 'deleted', deleted, 'storage_keys_queued', storage_keys_queued));
  return next;

  -- Voices: the unit's narration track and its word timings, voice_retention_days after.
  v_cutoff := v_now - make_interval(days => (v_settings->>'voice_retention_days')::integer);
  select count(*) into v_due from mdame.work_units u
   where u.stage = 'published' and u.voice ? 'audio_key' and not (u.voice ? 'deleted_at')
     and not exists (select 1 from mdame.publications p where p.unit_id = u.id and p.status = any (array['pending', 'uploading', 'deferred']))
     and (select max(p.published_at) from mdame.publications p where p.unit_id = u.id and p.status = 'published') < v_cutoff;
  v_deleted := 0;
  v_queued := 0;
  if not p_dry_run then
    with doomed as (
      select u.id from mdame.work_units u
       where u.stage = 'published' and u.voice ? 'audio_key' and not (u.voice ? 'deleted_at')
         and not exists (select 1 from mdame.publications p where p.unit_id = u.id and p.status = any (array['pending', 'uploading', 'deferred']))
         and (select max(p.published_at) from mdame.publications p where p.unit_id = u.id and p.status = 'published') < v_cutoff
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

  if not p_dry_run then
    perform mdame.log_event(null, null, 'housekeeping', 'housekeeping_pass', v_report || jsonb_build_object('engine_now', v_now));
  end if;
end;
$$;

revoke all on function mdame.housekeeping(boolean) from public, anon, authenticated;
grant execute on function mdame.housekeeping(boolean) to mdame_engine;
grant execute on function mdame.housekeeping(boolean) to service_role;

-- Claims up to p_limit due entries of the deletion outbox for p_lease_s seconds (engine clock):
-- each claim counts an attempt and hides the entry until the lease runs out, so a drain that dies
-- leaves it to the next one. A key something uses again since it was queued (a new cache entry,
-- a live unit's scene; mdame.storage_key_in_use) is dropped from the outbox instead of returned:
-- its object stays.

create or replace function mdame.claim_storage_deletions(p_limit integer, p_lease_s integer)
returns setof mdame.storage_deletions
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.storage_deletions;
begin
  if p_limit is null or p_limit not between 1 and 1000 or p_lease_s is null or p_lease_s not between 1 and 3600 then
    raise exception 'a claim takes 1 to 1000 entries for 1 to 3600 seconds' using errcode = '22023';
  end if;
  for v_row in
    select * from mdame.storage_deletions d where d.not_before <= mdame.engine_now()
     order by d.not_before, d.key limit p_limit for update skip locked
  loop
    if mdame.storage_key_in_use(v_row.key) then
      delete from mdame.storage_deletions d where d.key = v_row.key;
      perform mdame.log_event(null, null, 'housekeeping', 'storage_deletion_dropped',
        jsonb_build_object('key', v_row.key, 'kind', v_row.kind, 'reason', 'in use again'));
      continue;
    end if;
    update mdame.storage_deletions d set not_before = mdame.engine_now() + make_interval(secs => p_lease_s), attempts = d.attempts + 1
     where d.key = v_row.key
    returning * into v_row;
    return next v_row;
  end loop;
end;
$$;

revoke all on function mdame.claim_storage_deletions(integer,integer) from public, anon, authenticated;
grant execute on function mdame.claim_storage_deletions(integer,integer) to mdame_engine;
grant execute on function mdame.claim_storage_deletions(integer,integer) to service_role;

-- The object at p_key is gone from Storage: its outbox entry is done. Returns whether there was
-- one (a repeated acknowledgement finds none and changes nothing).

create or replace function mdame.ack_storage_deletion(p_key text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from mdame.storage_deletions d where d.key = p_key;
  return found;
end;
$$;

revoke all on function mdame.ack_storage_deletion(text) from public, anon, authenticated;
grant execute on function mdame.ack_storage_deletion(text) to mdame_engine;
grant execute on function mdame.ack_storage_deletion(text) to service_role;

-- Storage refused or did not answer the deletion of p_key: the entry waits p_delay_s seconds
-- (engine clock) and records the error; it is never given up. Returns the entry, or null when the
-- key is no longer in the outbox.

create or replace function mdame.retry_storage_deletion(p_key text, p_error text, p_delay_s integer)
returns mdame.storage_deletions
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.storage_deletions;
begin
  if p_delay_s is null or p_delay_s not between 0 and 86400 then
    raise exception 'a retry waits 0 to 86400 seconds' using errcode = '22023';
  end if;
  update mdame.storage_deletions d
     set not_before = mdame.engine_now() + make_interval(secs => p_delay_s), last_error = left(coalesce(p_error, ''), 500)
   where d.key = p_key
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.retry_storage_deletion(text,text,integer) from public, anon, authenticated;
grant execute on function mdame.retry_storage_deletion(text,text,integer) to mdame_engine;
grant execute on function mdame.retry_storage_deletion(text,text,integer) to service_role;

-- pg_cron's check of the deletion outbox (mdame-storage-deletions): the minutely tick wakes the
-- runner only for stage tasks, so this wakes it when an outbox entry is due (queued by the daily
-- housekeeping, or a retry whose wait ran out). Returns whether it woke the runner.

create or replace function mdame.wake_due_storage_deletions()
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  if exists (select 1 from mdame.storage_deletions d where d.not_before <= mdame.engine_now()) then
    perform mdame.wake_stage_runner('storage_deletions');
    return true;
  end if;
  return false;
end;
$$;

revoke all on function mdame.wake_due_storage_deletions() from public, anon, authenticated;
grant execute on function mdame.wake_due_storage_deletions() to mdame_engine;
grant execute on function mdame.wake_due_storage_deletions() to service_role;

-- The database's size and its p_limit largest tables (with their indexes and TOAST; pgmq's queue
-- and archive tables included), for `mdame storage usage` and the doctor. Also the deletion
-- outbox's backlog, and the Storage folders the engine writes (voice tracks, scene clips, renders,
-- each dimension's music library and weekly report charts) for a listing of Storage's sizes.

create or replace function mdame.database_usage(p_limit integer default 15)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select jsonb_build_object(
    'database_bytes', pg_database_size(current_database()),
    'pending_storage_deletions', (select count(*) from mdame.storage_deletions),
    'storage_prefixes', to_jsonb(array['renders', 'voice', 'scenes']
      || coalesce((select array_agg(distinct d.music->>'library' order by d.music->>'library') from mdame.dimensions d where d.music->>'library' is not null), array[]::text[])
      || coalesce((select array_agg('reports/weekly/' || d.id order by d.id) from mdame.dimensions d), array[]::text[])),
    'tables', coalesce((
      select jsonb_agg(jsonb_build_object('name', t.name, 'total_bytes', t.total_bytes, 'index_bytes', t.index_bytes) order by t.total_bytes desc, t.name)
        from (select n.nspname || '.' || c.relname as name, pg_total_relation_size(c.oid) as total_bytes, pg_indexes_size(c.oid) as index_bytes
                from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
               where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_toast'
               order by pg_total_relation_size(c.oid) desc, 1
               limit greatest(1, least(coalesce(p_limit, 15), 200))) t), '[]'::jsonb));
$$;

revoke all on function mdame.database_usage(integer) from public, anon, authenticated;
grant execute on function mdame.database_usage(integer) to mdame_engine;
grant execute on function mdame.database_usage(integer) to service_role;

-- Stamps a new scene cache entry's last_hit_at on the engine's clock (its TTL counts from it).

create or replace function mdame.stamp_scene_cache_entry()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.last_hit_at := mdame.engine_now();
  return new;
end;
$$;

comment on function mdame.stamp_scene_cache_entry() is 'internal: trigger stamping scene_cache.last_hit_at on the engine clock';

create trigger scene_cache_stamp before insert on mdame.scene_cache
  for each row execute function mdame.stamp_scene_cache_entry();

-- Pushes a scene cache entry's expiry when a scene takes its clip from the cache: record_scene_plan's
-- hit, or a worker's claim that found the entry (reported as cache_hit by complete_visual_job).
-- last_hit_at is on the engine's clock, as housekeeping's cutoff is.

create or replace function mdame.refresh_scene_cache_hit()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.cache_hit and new.asset_key is not null then
    update mdame.scene_cache c set last_hit_at = mdame.engine_now()
     where c.asset_key = new.asset_key and c.last_hit_at < mdame.engine_now();
  end if;
  return null;
end;
$$;

comment on function mdame.refresh_scene_cache_hit() is 'internal: trigger pushing a scene cache entry''s expiry when a scene hits it';

create trigger scenes_scene_cache_hit after insert or update of asset_key, cache_hit on mdame.scenes
  for each row execute function mdame.refresh_scene_cache_hit();

-- Any backend's clip of a scene (the oldest), for callers that predate per-backend entries. A hit
-- pushes the entry's expiry (last_hit_at on the engine clock, docs/retention.md).

create or replace function mdame.lookup_scene_cache(p_scene_hash text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_cache mdame.scene_cache;
begin
  select * into v_cache from mdame.scene_cache c where c.scene_hash = p_scene_hash order by c.created_at, c.backend limit 1;
  if not found then
    return null;
  end if;
  update mdame.scene_cache c set last_hit_at = mdame.engine_now() where c.scene_hash = v_cache.scene_hash and c.backend = v_cache.backend;
  return v_cache.asset_key;
end;
$$;

revoke all on function mdame.lookup_scene_cache(text) from public, anon, authenticated;
grant execute on function mdame.lookup_scene_cache(text) to mdame_engine;
grant execute on function mdame.lookup_scene_cache(text) to service_role;

create or replace function mdame.lookup_scene_cache(p_scene_hash text, p_backend text)
returns mdame.scene_cache
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_cache mdame.scene_cache;
begin
  update mdame.scene_cache c set last_hit_at = mdame.engine_now() where c.scene_hash = p_scene_hash and c.backend = p_backend
  returning * into v_cache;
  return v_cache;
end;
$$;

revoke all on function mdame.lookup_scene_cache(text,text) from public, anon, authenticated;
grant execute on function mdame.lookup_scene_cache(text,text) to mdame_engine;
grant execute on function mdame.lookup_scene_cache(text,text) to service_role;

-- Claims the generation of (scene_hash, backend) for p_holder for p_lease_s seconds. Returns
-- state 'ready' with the cache entry when it exists, 'claimed' when the caller is to generate it
-- (a new claim, its own claim renewed, or an expired one taken over), or 'busy' with the current
-- holder and lease when another worker is generating it. p_discard_asset drops a cache entry that
-- points at that asset (the caller found it missing from storage) before claiming. A 'ready'
-- answer is a cache hit: it pushes the entry's expiry (last_hit_at, docs/retention.md).

create or replace function mdame.claim_scene_generation(p_scene_hash text, p_backend text, p_holder text, p_lease_s integer, p_discard_asset text default null::text)
returns table(state text, asset_key text, credit jsonb, holder text, lease_until timestamp with time zone)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_cache mdame.scene_cache;
  v_claim mdame.scene_generation_claims;
begin
  if p_scene_hash is null or p_scene_hash !~ '^[0-9a-f]{64}$' then
    raise exception 'scene_hash must be 64 hex digits' using errcode = '22023';
  end if;
  if coalesce(p_backend, '') = '' or coalesce(p_holder, '') = '' or p_lease_s is null or p_lease_s not between 1 and 3600 then
    raise exception 'a claim needs a backend, a holder and a lease of 1 to 3600 seconds' using errcode = '22023';
  end if;
  if p_discard_asset is not null then
    delete from mdame.scene_cache c where c.scene_hash = p_scene_hash and c.backend = p_backend and c.asset_key = p_discard_asset;
  end if;
  select * into v_cache from mdame.scene_cache c where c.scene_hash = p_scene_hash and c.backend = p_backend;
  if found then
    update mdame.scene_cache c set last_hit_at = mdame.engine_now() where c.scene_hash = p_scene_hash and c.backend = p_backend;
    return query select 'ready'::text, v_cache.asset_key, v_cache.credit, null::text, null::timestamptz;
    return;
  end if;
  -- The unique key serialises two claimers: the second waits for the first's insert, then finds a
  -- live lease held by someone else and updates nothing.
  insert into mdame.scene_generation_claims as g (scene_hash, backend, holder, lease_until)
  values (p_scene_hash, p_backend, p_holder, clock_timestamp() + make_interval(secs => p_lease_s))
  on conflict (scene_hash, backend) do update
    set holder = excluded.holder,
        lease_until = excluded.lease_until,
        claims = g.claims + case when g.holder = excluded.holder then 0 else 1 end
    where g.holder = excluded.holder or g.lease_until < clock_timestamp()
  returning * into v_claim;
  if v_claim.holder is null then
    select * into v_claim from mdame.scene_generation_claims g where g.scene_hash = p_scene_hash and g.backend = p_backend;
    return query select 'busy'::text, null::text, null::jsonb, v_claim.holder, v_claim.lease_until;
    return;
  end if;
  -- An entry recorded between the first look and the claim (its claim already gone) wins.
  select * into v_cache from mdame.scene_cache c where c.scene_hash = p_scene_hash and c.backend = p_backend;
  if found then
    update mdame.scene_cache c set last_hit_at = mdame.engine_now() where c.scene_hash = p_scene_hash and c.backend = p_backend;
    delete from mdame.scene_generation_claims g where g.scene_hash = p_scene_hash and g.backend = p_backend and g.holder = p_holder;
    return query select 'ready'::text, v_cache.asset_key, v_cache.credit, null::text, null::timestamptz;
    return;
  end if;
  return query select 'claimed'::text, null::text, null::jsonb, v_claim.holder, v_claim.lease_until;
end;
$$;

revoke all on function mdame.claim_scene_generation(text,text,text,integer,text) from public, anon, authenticated;
grant execute on function mdame.claim_scene_generation(text,text,text,integer,text) to mdame_engine;
grant execute on function mdame.claim_scene_generation(text,text,text,integer,text) to service_role;

do $$
begin
  if not exists (select 1 from cron.job where jobname = 'mdame-housekeeping') then
    perform cron.schedule('mdame-housekeeping', '30 3 * * *', 'select count(*) from mdame.housekeeping(false)');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-storage-deletions') then
    perform cron.schedule('mdame-storage-deletions', '*/10 * * * *', 'select mdame.wake_due_storage_deletions()');
  end if;
end
$$;

select mdame.restrict_function_privileges();
