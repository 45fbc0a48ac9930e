-- sha256(env:date:trigger:<canonical JSON {dimension_id: config hash}>), as shared/hashing.ts runKey.

create or replace function mdame.run_key(p_env text, p_run_date date, p_trigger_kind text, p_config_hashes jsonb)
returns text
language sql
stable security definer
set search_path = ''
as $$
  select encode(sha256(convert_to(p_env || ':' || to_char(p_run_date, 'YYYY-MM-DD') || ':' || p_trigger_kind || ':'
                                  || mdame.canonical_json(p_config_hashes), 'UTF8')), 'hex');
$$;
