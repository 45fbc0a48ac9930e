-- abort through the outbox: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

drop function if exists "mdame"."claim_scene_generation"(p_scene_hash text, p_backend text, p_holder text, p_lease_s integer, p_discard_asset text);

drop function if exists "mdame"."claim_storage_deletions"(p_limit integer, p_lease_s integer);

alter table "mdame"."scene_generation_claims" add column "asset_key" text;

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.claim_scene_generation(p_scene_hash text, p_backend text, p_holder text, p_lease_s integer, p_discard_asset text DEFAULT NULL::text, p_asset_key text DEFAULT NULL::text)
 RETURNS TABLE(state text, asset_key text, credit jsonb, holder text, lease_until timestamp with time zone)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
  insert into mdame.scene_generation_claims as g (scene_hash, backend, holder, lease_until, asset_key)
  values (p_scene_hash, p_backend, p_holder, clock_timestamp() + make_interval(secs => p_lease_s), p_asset_key)
  on conflict (scene_hash, backend) do update
    set holder = excluded.holder,
        lease_until = excluded.lease_until,
        asset_key = coalesce(excluded.asset_key, g.asset_key),
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
$function$
;

CREATE OR REPLACE FUNCTION mdame.claim_storage_deletions(p_limit integer, p_lease_s integer, p_keys text[] DEFAULT NULL::text[])
 RETURNS SETOF mdame.storage_deletions
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_row mdame.storage_deletions;
begin
  if p_limit is null or p_limit not between 1 and 1000 or p_lease_s is null or p_lease_s not between 1 and 3600 then
    raise exception 'a claim takes 1 to 1000 entries for 1 to 3600 seconds' using errcode = '22023';
  end if;
  for v_row in
    select * from mdame.storage_deletions d where d.not_before <= mdame.engine_now() and (p_keys is null or d.key = any (p_keys))
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
    v_videos := v_videos || (v_unit.video->>'video_key');
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

CREATE OR REPLACE FUNCTION mdame.storage_key_in_use(p_key text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select exists (select 1 from mdame.scene_cache c where c.asset_key = p_key)
      or exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                  where s.asset_key = p_key and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.scene_generation_claims g
                  where p_key = coalesce(g.asset_key, 'scenes/' || g.scene_hash || '.mp4') and g.lease_until > clock_timestamp())
      or exists (select 1 from mdame.work_units u
                  where u.voice is not null and not (u.voice ? 'deleted_at')
                    and p_key in (u.voice->>'audio_key', regexp_replace(u.voice->>'audio_key', '\.[^./]*$', '') || '.json'))
      or exists (select 1 from mdame.work_units u
                  where u.video is not null and not (u.video ? 'deleted_at') and u.video->>'video_key' = p_key)
      or exists (select 1 from mdame.publications p
                  where p.video_key = p_key and p.status = any (array['pending', 'uploading', 'deferred']));
$function$
;

select mdame.restrict_function_privileges();
