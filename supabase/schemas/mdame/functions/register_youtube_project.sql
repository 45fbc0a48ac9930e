-- Registers a Google project (an OAuth client of the operator's) under a short name, with its
-- client secret sealed by the caller (the functions hold the key ring) and, optionally, the sizes
-- YouTube granted it; absent sizes are YouTube's defaults, or what the row held. A client the
-- engine met already through connects (a row without a name) is registered in place, keeping its
-- ledger. The name `default` is the environment's client (GOOGLE_OAUTH_CLIENT_ID/SECRET) and cannot
-- be registered. Bad input is 22023; a name or a client registered already is MDS01.

create or replace function mdame.register_youtube_project(p_name text, p_oauth_client_id text, p_client_secret_enc text, p_upload_calls_per_day integer default null::integer, p_api_units_per_day integer default null::integer, p_analytics_queries_per_day integer default null::integer, p_stats_units_per_day integer default null::integer)
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
  if least(p_upload_calls_per_day, p_api_units_per_day, p_analytics_queries_per_day, p_stats_units_per_day) < 0 then
    raise exception 'bucket sizes are zero or more' using errcode = '22023';
  end if;
  if v_named.oauth_client_id is not null then
    raise exception 'a YouTube project named % is registered already (client %): choose another name, or remove it first', p_name, v_named.oauth_client_id
      using errcode = 'MDS01';
  end if;
  if v_client.name is not null then
    raise exception 'the OAuth client % is registered already as project %', p_oauth_client_id, v_client.name using errcode = 'MDS01';
  end if;

  insert into mdame.youtube_projects as p (oauth_client_id, name, client_secret_enc, upload_calls_per_day, api_units_per_day, analytics_queries_per_day,
                                     stats_units_per_day)
  values (p_oauth_client_id, p_name, p_client_secret_enc, coalesce(p_upload_calls_per_day, 100), coalesce(p_api_units_per_day, 10000),
          coalesce(p_analytics_queries_per_day, 10000), coalesce(p_stats_units_per_day, 10000))
  on conflict (oauth_client_id) do update
    set name = excluded.name,
        client_secret_enc = excluded.client_secret_enc,
        upload_calls_per_day = coalesce(p_upload_calls_per_day, p.upload_calls_per_day),
        api_units_per_day = coalesce(p_api_units_per_day, p.api_units_per_day),
        analytics_queries_per_day = coalesce(p_analytics_queries_per_day, p.analytics_queries_per_day),
        stats_units_per_day = coalesce(p_stats_units_per_day, p.stats_units_per_day),
        updated_at = now()
  returning * into v_row;
  return v_row;
end;
$$;
