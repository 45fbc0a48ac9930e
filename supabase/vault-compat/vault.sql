-- Supabase Vault's SQL surface for servers without the supabase_vault extension (the local stack on
-- the OS packages' Postgres), so mdame.wake_stage_runner reads its secrets the same way everywhere.
--
-- Follows supabase_vault 0.3 (github.com/supabase/vault): vault.secrets holds each secret encrypted,
-- vault.decrypted_secrets shows it in clear, vault.create_secret and vault.update_secret write it.
-- Vault keeps its root key outside the database; this stand-in keeps one in a function body, which
-- keeps secrets out of every plain column and dump of vault.secrets, and no more: it is no
-- protection against a superuser, which on the local stack is the developer.
--
-- Installed by the local stack's db reset after the migrations, only where `pg_available_extensions`
-- has no supabase_vault. Where the real Vault is installed, this file leaves it alone. Re-running it
-- is harmless.

select exists (select 1 from pg_extension where extname = 'supabase_vault') as compat_real_vault \gset
\if :compat_real_vault
\else

create extension if not exists pgcrypto with schema extensions;
create schema if not exists vault;
revoke all on schema vault from public;

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

create or replace function vault._compat_root_key() returns text
language sql immutable set search_path = '' as $$ select 'mdame-vault-compat-root-key' $$;

create or replace function vault._compat_encrypt(p_secret text) returns text
language sql set search_path = '' as $$
  select encode(extensions.pgp_sym_encrypt_bytea(convert_to(p_secret, 'UTF8'), vault._compat_root_key()), 'base64')
$$;

create or replace view vault.decrypted_secrets as
  select s.id, s.name, s.description, s.secret,
         convert_from(extensions.pgp_sym_decrypt_bytea(decode(s.secret, 'base64'), vault._compat_root_key()), 'UTF8') as decrypted_secret,
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
  if new_secret is null then
    raise exception 'vault.create_secret: the secret must not be null' using errcode = '22004';
  end if;
  insert into vault.secrets (name, description, secret, key_id)
  values (new_name, coalesce(new_description, ''), vault._compat_encrypt(new_secret), new_key_id)
  returning id into v_id;
  return v_id;
end;
$$;

-- Vault's signature: a null argument keeps what the secret has.
create or replace function vault.update_secret(
  secret_id uuid,
  new_secret text default null,
  new_name text default null,
  new_description text default null,
  new_key_id uuid default null)
returns void
language plpgsql
set search_path = ''
as $$
begin
  update vault.secrets s
     set secret = coalesce(vault._compat_encrypt(new_secret), s.secret),
         name = coalesce(new_name, s.name),
         description = coalesce(new_description, s.description),
         key_id = coalesce(new_key_id, s.key_id),
         updated_at = now()
   where s.id = secret_id;
end;
$$;

\endif
