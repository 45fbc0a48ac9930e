create or replace function mdame.config_hash(p_config jsonb)
returns text
language sql
immutable security definer
set search_path = ''
as $$
  select encode(sha256(convert_to(mdame.canonical_json(p_config), 'UTF8')), 'hex');
$$;

revoke all on function mdame.config_hash(jsonb) from public, anon, authenticated;
grant execute on function mdame.config_hash(jsonb) to mdame_engine;
grant execute on function mdame.config_hash(jsonb) to service_role;
