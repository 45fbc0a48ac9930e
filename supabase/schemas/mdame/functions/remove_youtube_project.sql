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
