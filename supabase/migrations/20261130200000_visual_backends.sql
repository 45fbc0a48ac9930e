-- Visual backends per dimension, a scene cache per backend, and one generation per cache key.
--
--   * mdame.dimensions.visuals: the backend order (ending with 'procedural') and the Pexels blocklist,
--     validated by shared/providers/visuals/config.ts; the default keeps existing dimensions as they were.
--   * mdame.scene_cache is keyed by (scene_hash, backend): each backend (with its model) has its own
--     entry, and a stock clip keeps its credit (author, page, licence) next to it.
--   * mdame.scene_generation_claims: the first worker to meet a cache key takes a lease and
--     generates; another one waits for the entry or for the lease to run out, then takes over.

alter table mdame.dimensions
  add column visuals jsonb not null default '{"backends": ["procedural"], "pexels_blocklist": []}'::jsonb
  check (jsonb_typeof(visuals) = 'object'
         and jsonb_typeof(visuals->'backends') = 'array'
         and jsonb_array_length(visuals->'backends') between 1 and 5
         and visuals->'backends'->>-1 = 'procedural');

alter table mdame.scene_cache
  -- The configured name ('gemini-image', 'pexels', ...) of `backend` (a version such as
  -- 'gemini-image/1:<model>'): the part before the first '/', and 'procedural' for the procedural one.
  add column backend_name text generated always as (
    case when backend like 'procedural-ffmpeg/%' then 'procedural' else split_part(backend, '/', 1) end) stored,
  -- Attribution of a stock clip: {provider, author, author_url, page_url, licence, video_id}.
  add column credit jsonb check (credit is null or jsonb_typeof(credit) = 'object');
alter table mdame.scene_cache drop constraint scene_cache_pkey;
alter table mdame.scene_cache add primary key (scene_hash, backend);

-- Which backend made a scene's clip (null while queued).
alter table mdame.scenes add column backend text;
update mdame.scenes s set backend = c.backend
  from mdame.scene_cache c where c.scene_hash = s.scene_hash and c.asset_key = s.asset_key and s.backend is null;

create table mdame.scene_generation_claims (
  scene_hash text not null check (scene_hash ~ '^[0-9a-f]{64}$'),
  backend text not null,
  holder text not null,
  lease_until timestamptz not null,
  -- How many times the key was claimed (a takeover after an expired lease counts again).
  claims integer not null default 1,
  primary key (scene_hash, backend)
);

-- The cached clip of a scene for one backend, or null.
create function mdame.lookup_scene_cache(p_scene_hash text, p_backend text)
returns mdame.scene_cache
language sql
stable
set search_path = ''
as $$
  select * from mdame.scene_cache where scene_hash = p_scene_hash and backend = p_backend;
$$;

-- Any backend's clip of a scene (the oldest), for callers that predate per-backend entries.
create or replace function mdame.lookup_scene_cache(p_scene_hash text)
returns text
language sql
stable
set search_path = ''
as $$
  select asset_key from mdame.scene_cache where scene_hash = p_scene_hash order by created_at, backend limit 1;
$$;

-- Claims the generation of (scene_hash, backend) for p_holder for p_lease_s seconds. Returns
-- state 'ready' with the cache entry when it exists, 'claimed' when the caller is to generate it
-- (a new claim, its own claim renewed, or an expired one taken over), or 'busy' with the current
-- holder and lease when another worker is generating it. p_discard_asset drops a cache entry that
-- points at that asset (the caller found it missing from storage) before claiming.
create function mdame.claim_scene_generation(p_scene_hash text, p_backend text, p_holder text, p_lease_s integer,
                                             p_discard_asset text default null)
returns table (state text, asset_key text, credit jsonb, holder text, lease_until timestamptz)
language plpgsql
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
    delete from mdame.scene_generation_claims g where g.scene_hash = p_scene_hash and g.backend = p_backend and g.holder = p_holder;
    return query select 'ready'::text, v_cache.asset_key, v_cache.credit, null::text, null::timestamptz;
    return;
  end if;
  return query select 'claimed'::text, null::text, null::jsonb, v_claim.holder, v_claim.lease_until;
end;
$$;

-- Records a generated clip in the scene cache and ends the claim. The first entry for a key wins:
-- a worker that took over an expired lease and finished second gets the winner's entry back.
create function mdame.record_scene_asset(p_scene_hash text, p_backend text, p_asset_key text, p_credit jsonb, p_holder text)
returns mdame.scene_cache
language plpgsql
set search_path = ''
as $$
declare
  v_cache mdame.scene_cache;
begin
  if p_scene_hash is null or p_scene_hash !~ '^[0-9a-f]{64}$' or coalesce(p_backend, '') = ''
     or coalesce(p_asset_key, '') = '' or length(p_asset_key) > 300 then
    raise exception 'a scene asset needs a scene_hash, a backend and an asset key of at most 300 characters' using errcode = '22023';
  end if;
  if p_credit is not null and jsonb_typeof(p_credit) <> 'object' then
    raise exception 'a credit is a JSON object' using errcode = '22023';
  end if;
  insert into mdame.scene_cache (scene_hash, backend, asset_key, credit)
  values (p_scene_hash, p_backend, p_asset_key, p_credit)
  on conflict (scene_hash, backend) do nothing;
  delete from mdame.scene_generation_claims g where g.scene_hash = p_scene_hash and g.backend = p_backend and g.holder = p_holder;
  select * into v_cache from mdame.scene_cache c where c.scene_hash = p_scene_hash and c.backend = p_backend;
  return v_cache;
end;
$$;

-- Gives up a claim (the backend failed or had no result), so a waiting worker takes over at once.
create function mdame.release_scene_claim(p_scene_hash text, p_backend text, p_holder text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  delete from mdame.scene_generation_claims g where g.scene_hash = p_scene_hash and g.backend = p_backend and g.holder = p_holder;
  return found;
end;
$$;

-- Stores the scene plan; a scene with a cached clip from one of the dimension's backends (the
-- earliest in its list) is ready at once, the rest become visual_generation jobs carrying the
-- scene's keywords and the dimension's visuals. The voice task is enqueued alongside.
create or replace function mdame.record_scene_plan(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_scenes jsonb, p_visual jsonb, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_scene jsonb;
  v_scene_id uuid;
  v_cached mdame.scene_cache;
  v_msg_id bigint;
  v_job jsonb;
  v_backends text[];
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'plan', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;
  -- A plan without visuals (made before backend lists) is procedural only.
  v_backends := case when jsonb_typeof(p_visual->'visuals'->'backends') = 'array'
                     then array(select jsonb_array_elements_text(p_visual->'visuals'->'backends'))
                     else array['procedural'] end;

  for v_scene in select value from jsonb_array_elements(p_scenes) order by (value->>'index')::integer loop
    select c.* into v_cached from mdame.scene_cache c
     where c.scene_hash = v_scene->>'scene_hash' and c.backend_name = any (v_backends)
     order by array_position(v_backends, c.backend_name), c.created_at
     limit 1;
    insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit, backend)
    values (p_unit_id, (v_scene->>'index')::integer, v_scene->>'prompt', v_scene->>'narration', (v_scene->>'first_word')::integer,
            (v_scene->>'duration_s')::numeric, v_scene->>'scene_hash',
            case when v_cached.asset_key is null then 'queued' else 'ready' end, v_cached.asset_key, v_cached.asset_key is not null,
            v_cached.backend)
    returning id into v_scene_id;
    if v_cached.asset_key is null then
      v_job := jsonb_build_object(
        'run_id', v_unit.run_id, 'unit_id', p_unit_id, 'scene_id', v_scene_id, 'scene_index', (v_scene->>'index')::integer,
        'scene_hash', v_scene->>'scene_hash', 'dimension_id', v_unit.dimension_id, 'prompt', v_scene->>'prompt',
        'style', p_visual->'style', 'duration_s', (v_scene->>'duration_s')::numeric,
        'width', (p_visual->>'width')::integer, 'height', (p_visual->>'height')::integer, 'fps', (p_visual->>'fps')::integer);
      -- Absent fields stay absent: the job contract's defaults (no keywords, procedural) apply.
      if v_scene ? 'keywords' then
        v_job := v_job || jsonb_build_object('keywords', v_scene->'keywords');
      end if;
      if p_visual ? 'visuals' then
        v_job := v_job || jsonb_build_object('visuals', p_visual->'visuals');
      end if;
      v_job := v_job || jsonb_build_object('step_token', mdame.step_token(v_scene_id::text, mdame.stage_index('visual_generation'), v_job));
      select pgmq.send('visual_generation', v_job) into v_msg_id;
      update mdame.scenes set msg_id = v_msg_id, job = v_job where id = v_scene_id;
    end if;
  end loop;

  perform mdame.store_step_result(p_step_token, jsonb_build_object('scenes', p_scenes, 'visual', p_visual));
  v_unit := mdame.set_unit_stage(p_unit_id, 'media');
  perform mdame.enqueue_stage_task('voice', v_unit.run_id, p_unit_id);
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'plan', 'scenes_planned', jsonb_build_object(
    'scenes', jsonb_array_length(p_scenes),
    'cached', (select count(*) from mdame.scenes where unit_id = p_unit_id and cache_hit)));
  return v_unit;
end;
$$;

-- Which backend made the clip is kept on the scene, so a video's scenes can be told apart.
create or replace function mdame.complete_visual_job(p_msg_id bigint, p_scene_id uuid, p_scene_hash text, p_asset_key text, p_backend text, p_cache_hit boolean, p_webhook_id text)
returns mdame.scenes
language plpgsql
set search_path = ''
as $$
declare
  v_scene mdame.scenes;
  v_unit mdame.work_units;
  v_queued boolean;
begin
  select * into v_scene from mdame.scenes where id = p_scene_id;
  if not found then
    raise exception 'no scene %', p_scene_id using errcode = 'MDN01';
  end if;
  select * into v_unit from mdame.work_units where id = v_scene.unit_id for update;
  select * into v_scene from mdame.scenes where id = p_scene_id for update;
  if not mdame.record_webhook(p_webhook_id, 'visual_generation.completed') then
    return v_scene;
  end if;
  if v_scene.scene_hash <> p_scene_hash then
    raise exception 'scene % has hash %, the callback reported %', p_scene_id, v_scene.scene_hash, left(p_scene_hash, 64) using errcode = 'MDS01';
  end if;
  v_queued := mdame.assert_worker_message('visual_generation', p_msg_id, v_scene.unit_id, p_scene_id);
  if v_queued then
    perform pgmq.archive('visual_generation', p_msg_id);
  end if;
  -- The worker recorded its entry already (record_scene_asset); this covers a worker that did not.
  insert into mdame.scene_cache (scene_hash, asset_key, backend) values (p_scene_hash, p_asset_key, p_backend)
  on conflict (scene_hash, backend) do nothing;
  if v_scene.status = 'ready' or v_unit.stage <> 'media' then
    return v_scene;
  end if;
  update mdame.scenes set status = 'ready', asset_key = p_asset_key, cache_hit = p_cache_hit, backend = p_backend, updated_at = now()
   where id = p_scene_id
  returning * into v_scene;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'visual_generation', 'scene_ready',
    jsonb_build_object('scene_index', v_scene.scene_index, 'cache_hit', p_cache_hit, 'backend', p_backend));
  perform mdame.enqueue_render_if_ready(v_unit.id);
  return v_scene;
end;
$$;

select mdame.restrict_function_privileges();
