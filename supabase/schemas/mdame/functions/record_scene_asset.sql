-- Records a generated clip in the scene cache and ends the claim. The first entry for a key wins:
-- a worker that took over an expired lease and finished second gets the winner's entry back.

create or replace function mdame.record_scene_asset(p_scene_hash text, p_backend text, p_asset_key text, p_credit jsonb, p_holder text)
returns mdame.scene_cache
language plpgsql
security definer
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
