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
