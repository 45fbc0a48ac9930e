create or replace function mdame.config_hash(p_config jsonb)
returns text
language sql
immutable security definer
set search_path = ''
as $$
  select encode(sha256(convert_to(mdame.canonical_json(p_config), 'UTF8')), 'hex');
$$;
