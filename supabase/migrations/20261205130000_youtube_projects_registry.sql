-- Several Google projects: an operator registers OAuth clients under short names, their client
-- secrets sealed with the credentials key ring; each account's token is refreshed with the client
-- that granted it, and its calls are charged to that project's buckets (docs/distribution.md).

alter table mdame.youtube_projects add column name text;
alter table mdame.youtube_projects add column client_secret_enc text;
alter table mdame.youtube_projects add constraint youtube_projects_name_key unique (name);
alter table mdame.youtube_projects add constraint youtube_projects_name_check check ((name ~ '^[a-z0-9][a-z0-9-]{0,39}$'::text) and (name <> 'default'::text));
alter table mdame.youtube_projects add constraint youtube_projects_registered_check check (((name is null) = (client_secret_enc is null)));

comment on column mdame.youtube_projects.name is 'The short name an operator registered the project under (mdame youtube-project add); null for a project met only through connects with the environment''s client (GOOGLE_OAUTH_CLIENT_ID), which is the project default.';
comment on column mdame.youtube_projects.client_secret_enc is 'The OAuth client secret, AES-256-GCM sealed with the credentials key ring for this client id; null when the environment''s GOOGLE_OAUTH_CLIENT_SECRET serves the project.';

-- Registers a Google project (an OAuth client of the operator's) under a short name, with its
-- client secret sealed by the caller (the functions hold the key ring) and, optionally, the sizes
-- YouTube granted it; absent sizes are YouTube's defaults, or what the row held. A client the
-- engine met already through connects (a row without a name) is registered in place, keeping its
-- ledger. The name `default` is the environment's client (GOOGLE_OAUTH_CLIENT_ID/SECRET) and cannot
-- be registered. Bad input is 22023; a name or a client registered already is MDS01.

create or replace function mdame.register_youtube_project(p_name text, p_oauth_client_id text, p_client_secret_enc text, p_upload_calls_per_day integer default null::integer, p_api_units_per_day integer default null::integer, p_analytics_queries_per_day integer default null::integer)
returns mdame.youtube_projects
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_named mdame.youtube_projects;
  v_client mdame.youtube_projects;
  v_row mdame.youtube_projects;
begin
  select * into v_client from mdame.youtube_projects where oauth_client_id = p_oauth_client_id for update;
  select * into v_named from mdame.youtube_projects where name = p_name for update;
  if p_name is null or p_name !~ '^[a-z0-9][a-z0-9-]{0,39}$' then
    raise exception 'a project name is 1 to 40 lower-case letters, digits or dashes, starting with a letter or digit, not %', coalesce(p_name, '(none)')
      using errcode = '22023';
  end if;
  if p_name = 'default' then
    raise exception 'the project default is the environment''s client (GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET): choose another name'
      using errcode = '22023';
  end if;
  if coalesce(trim(p_oauth_client_id), '') = '' or p_oauth_client_id = 'default' then
    raise exception 'an OAuth client id is needed' using errcode = '22023';
  end if;
  if coalesce(p_client_secret_enc, '') !~ '^v2\.' then
    raise exception 'the client secret must be sealed with the credentials key ring' using errcode = '22023';
  end if;
  if least(p_upload_calls_per_day, p_api_units_per_day, p_analytics_queries_per_day) < 0 then
    raise exception 'bucket sizes are zero or more' using errcode = '22023';
  end if;
  if v_named.oauth_client_id is not null then
    raise exception 'a YouTube project named % is registered already (client %): choose another name, or remove it first', p_name, v_named.oauth_client_id
      using errcode = 'MDS01';
  end if;
  if v_client.name is not null then
    raise exception 'the OAuth client % is registered already as project %', p_oauth_client_id, v_client.name using errcode = 'MDS01';
  end if;

  insert into mdame.youtube_projects as p (oauth_client_id, name, client_secret_enc, upload_calls_per_day, api_units_per_day, analytics_queries_per_day)
  values (p_oauth_client_id, p_name, p_client_secret_enc, coalesce(p_upload_calls_per_day, 100), coalesce(p_api_units_per_day, 10000),
          coalesce(p_analytics_queries_per_day, 10000))
  on conflict (oauth_client_id) do update
    set name = excluded.name,
        client_secret_enc = excluded.client_secret_enc,
        upload_calls_per_day = coalesce(p_upload_calls_per_day, p.upload_calls_per_day),
        api_units_per_day = coalesce(p_api_units_per_day, p.api_units_per_day),
        analytics_queries_per_day = coalesce(p_analytics_queries_per_day, p.analytics_queries_per_day),
        updated_at = now()
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.register_youtube_project(text,text,text,integer,integer,integer) from public, anon, authenticated;
grant execute on function mdame.register_youtube_project(text,text,text,integer,integer,integer) to mdame_engine;
grant execute on function mdame.register_youtube_project(text,text,text,integer,integer,integer) to service_role;

-- Unregisters the Google project named p_name: its name and sealed secret are erased, the row
-- stays (the quota ledger's history is charged to it). Refused (MDS01) while an account holding
-- credentials was connected through it, paused ones included: their refresh tokens work only with
-- this client. MDN01 when no project has that name. Answers the project as it was registered.

create or replace function mdame.remove_youtube_project(p_name text)
returns mdame.youtube_projects
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.youtube_projects;
  v_users text;
  v_count integer;
begin
  select * into v_row from mdame.youtube_projects where name = p_name for update;
  if not found then
    raise exception 'no YouTube project %', coalesce(p_name, '(none)') using errcode = 'MDN01';
  end if;
  select count(*), string_agg(a.channel_handle || ' (' || a.dimension_id || ')', ', ' order by a.dimension_id, a.channel_handle)
    into v_count, v_users
    from mdame.dimension_accounts a
   where a.platform = 'youtube' and a.oauth_client_id = v_row.oauth_client_id and a.credentials_enc is not null;
  if v_count > 0 then
    raise exception 'YouTube project % is used by % account(s): %; connect them through another project (mdame account connect youtube --project <name>) or remove them first',
      p_name, v_count, v_users using errcode = 'MDS01';
  end if;
  update mdame.youtube_projects set name = null, client_secret_enc = null, updated_at = now() where oauth_client_id = v_row.oauth_client_id;
  return v_row;
end;
$$;

revoke all on function mdame.remove_youtube_project(text) from public, anon, authenticated;
grant execute on function mdame.remove_youtube_project(text) to mdame_engine;
grant execute on function mdame.remove_youtube_project(text) to service_role;

-- The Google projects with their buckets and what is planned on them: the YouTube accounts holding
-- credentials connected through each (all, and the active ones), and the uploads a day those
-- active accounts are planned to make (each active dimension's daily_limit, once per account: every
-- account of a dimension uploads each of its videos), against upload_calls_per_day; and the upload
-- calls charged today (the current Pacific quota day). Named projects first, by name. PL/pgSQL: the
-- declared schema creates it before youtube_quota_day, which a SQL body would need to exist.

create or replace function mdame.get_youtube_projects()
returns table(oauth_client_id text, name text, client_secret_enc text, upload_calls_per_day integer, api_units_per_day integer, analytics_queries_per_day integer, accounts integer, active_accounts integer, planned_uploads_per_day integer, uploads_today integer, created_at timestamp with time zone)
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  return query
  select p.oauth_client_id, p.name, p.client_secret_enc, p.upload_calls_per_day, p.api_units_per_day, p.analytics_queries_per_day,
         (select count(*)::integer from mdame.dimension_accounts a
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null),
         (select count(*)::integer from mdame.dimension_accounts a
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null and a.active),
         (select coalesce(sum(d.daily_limit), 0)::integer
            from mdame.dimension_accounts a join mdame.dimensions d on d.id = a.dimension_id
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null and a.active and d.active),
         (select coalesce(sum(l.cost), 0)::integer from mdame.quota_ledger l
           where l.oauth_client_id = p.oauth_client_id and l.bucket = 'uploads' and l.status <> 'released'
             and l.quota_day = mdame.youtube_quota_day(mdame.engine_now())),
         p.created_at
    from mdame.youtube_projects p
   order by p.name is null, p.name, p.oauth_client_id;
end;
$$;

revoke all on function mdame.get_youtube_projects() from public, anon, authenticated;
grant execute on function mdame.get_youtube_projects() to mdame_engine;
grant execute on function mdame.get_youtube_projects() to service_role;

-- The OAuth client an account's refresh token was granted to: its client id and, for a registered
-- project, the sealed client secret (null: the environment's GOOGLE_OAUTH_CLIENT_SECRET serves it).
-- What refreshes the account's access token uses, so Google sees the client that granted it.

create or replace function mdame.get_youtube_client(p_account_id uuid)
returns table(account_id uuid, oauth_client_id text, name text, client_secret_enc text)
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  return query
    select a.id, a.oauth_client_id, p.name, p.client_secret_enc
      from mdame.dimension_accounts a left join mdame.youtube_projects p on p.oauth_client_id = a.oauth_client_id
     where a.id = p_account_id;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
end;
$$;

revoke all on function mdame.get_youtube_client(uuid) from public, anon, authenticated;
grant execute on function mdame.get_youtube_client(uuid) to mdame_engine;
grant execute on function mdame.get_youtube_client(uuid) to service_role;

-- Replaces a registered Google project's sealed client secret with the same secret sealed anew
-- (key rotation, `mdame credentials rotate`), as a compare-and-swap: only while the stored value is
-- still the one the caller read, so a project removed or registered again meanwhile is never
-- overwritten; the row comes back as it stands. MDN01 when no row has the client id.

create or replace function mdame.reseal_youtube_project_secret(p_oauth_client_id text, p_expected_enc text, p_resealed_enc text)
returns mdame.youtube_projects
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.youtube_projects;
begin
  select * into v_row from mdame.youtube_projects where oauth_client_id = p_oauth_client_id for update;
  if not found then
    raise exception 'no YouTube project with client %', p_oauth_client_id using errcode = 'MDN01';
  end if;
  if p_expected_enc is null then
    raise exception 'the secret read before re-sealing is required' using errcode = '22023';
  end if;
  if p_resealed_enc is null or p_resealed_enc !~ '^v2\.[0-9a-f]{8}\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$' then
    raise exception 'a re-sealed secret must be in the current format (v2.<kid>.<iv>.<ciphertext>)' using errcode = '22023';
  end if;
  if v_row.client_secret_enc is distinct from p_expected_enc then
    return v_row;
  end if;
  update mdame.youtube_projects set client_secret_enc = p_resealed_enc, updated_at = now()
   where oauth_client_id = p_oauth_client_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.reseal_youtube_project_secret(text,text,text) from public, anon, authenticated;
grant execute on function mdame.reseal_youtube_project_secret(text,text,text) to mdame_engine;
grant execute on function mdame.reseal_youtube_project_secret(text,text,text) to service_role;

select mdame.restrict_function_privileges();
