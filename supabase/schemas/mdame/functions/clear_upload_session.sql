-- Forgets an expired session URI so the next attempt opens a new one (the platform kept no bytes).

create or replace function mdame.clear_upload_session(p_publication_id uuid, p_session_uri text)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
begin
  update mdame.publications set upload_session_uri = null, status = 'pending', updated_at = now()
   where id = p_publication_id and upload_session_uri = p_session_uri and status = 'uploading'
  returning * into v_pub;
  if not found then
    select * into v_pub from mdame.publications where id = p_publication_id;
  end if;
  return v_pub;
end;
$$;
