-- Claims the generation of (scene_hash, backend) for p_holder for p_lease_s seconds. Returns
-- state 'ready' with the cache entry when it exists, 'claimed' when the caller is to generate it
-- (a new claim, its own claim renewed, or an expired one taken over), or 'busy' with the current
-- holder and lease when another worker is generating it. p_discard_asset drops a cache entry that
-- points at that asset (the caller found it missing from storage) before claiming. A 'ready'
-- answer is a cache hit: it pushes the entry's expiry (last_hit_at, docs/reference/retention.md).
-- p_asset_key is where the claimer will store the clip: kept on the claim, so the object counts as
-- in use (mdame.storage_key_in_use) while it is uploaded and not yet recorded, whatever the backend.

create or replace function mdame.claim_scene_generation(p_scene_hash text, p_backend text, p_holder text, p_lease_s integer, p_discard_asset text default null::text, p_asset_key text default null::text)
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
$$;
