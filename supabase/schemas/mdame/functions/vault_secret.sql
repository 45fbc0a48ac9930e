-- A Vault secret by name, trimmed; null when it is missing or blank. Runs as its caller: on
-- Supabase only the owner of the migrations may read vault.decrypted_secrets, so only the functions
-- that run as that owner (wake_stage_runner and wake_next_tick through post_tick_request, the
-- watchdog) get anything back. PL/pgSQL: schema vault may come after the declared schema (the
-- stand-in on plain Postgres).

create or replace function mdame.vault_secret(p_name text)
returns text
language plpgsql
stable
set search_path = ''
as $$
begin
  return (select nullif(btrim(s.decrypted_secret), '') from vault.decrypted_secrets s where s.name = p_name limit 1);
end;
$$;

comment on function mdame.vault_secret(text) is 'internal: a Vault secret by name, trimmed, null when missing or blank';
