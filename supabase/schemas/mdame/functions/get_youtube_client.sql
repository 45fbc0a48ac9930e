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
