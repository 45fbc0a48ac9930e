-- Gives up a claim (the backend failed or had no result), so a waiting worker takes over at once.

create or replace function mdame.release_scene_claim(p_scene_hash text, p_backend text, p_holder text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from mdame.scene_generation_claims g where g.scene_hash = p_scene_hash and g.backend = p_backend and g.holder = p_holder;
  return found;
end;
$$;
