-- Supabase Vault's SQL surface for tests on plain Postgres (see README.md beside this file): the
-- secret is stored encrypted in vault.secrets and read in clear only through vault.decrypted_secrets.
-- Vault keeps its root key outside the database; this shim keeps one in a function body, which is
-- enough for what tests check: no table holds the secret in clear.
-- Where the real Vault is installed (a Supabase server), the file leaves it alone.

select exists (select 1 from pg_extension where extname = 'supabase_vault') as shim_real_vault \gset
\if :shim_real_vault
\else

create extension if not exists pgcrypto with schema extensions;
create schema if not exists vault;

create table if not exists vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  secret text not null,
  key_id uuid,
  nonce bytea,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index if not exists secrets_name_idx on vault.secrets (name) where name is not null;

create or replace function vault._shim_root_key() returns text
language sql immutable set search_path = '' as $$ select 'mdame-vault-shim-root-key' $$;

create or replace view vault.decrypted_secrets as
  select s.id, s.name, s.description, s.secret,
         convert_from(extensions.pgp_sym_decrypt_bytea(decode(s.secret, 'base64'), vault._shim_root_key()), 'UTF8') as decrypted_secret,
         s.key_id, s.nonce, s.created_at, s.updated_at
    from vault.secrets s;

create or replace function vault.create_secret(
  new_secret text,
  new_name text default null,
  new_description text default '',
  new_key_id uuid default null)
returns uuid
language plpgsql
set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into vault.secrets (name, description, secret, key_id)
  values (new_name, coalesce(new_description, ''),
          encode(extensions.pgp_sym_encrypt_bytea(convert_to(new_secret, 'UTF8'), vault._shim_root_key()), 'base64'),
          new_key_id)
  returning id into v_id;
  return v_id;
end;
$$;

\endif
