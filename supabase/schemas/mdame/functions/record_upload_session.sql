-- Stores the resumable session URI once; a second call keeps the first URI.

create or replace function mdame.record_upload_session(p_publication_id uuid, p_session_uri text)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
begin
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  if v_pub.status = 'published' or v_pub.upload_session_uri is not null then
    return v_pub;
  end if;
  update mdame.publications set upload_session_uri = p_session_uri, status = 'uploading', updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  return v_pub;
end;
$$;
