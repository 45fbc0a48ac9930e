-- Marks a publication published with the platform's id and logs it once, under the caller's locks
-- (the unit, then the publication, FOR UPDATE); a publication already published is returned
-- unchanged, keeping its first id. The one place record_publication and complete_publication
-- record an upload. published_at is on the engine's clock, the clock the analytics windows
-- (published_at + 3 and + 7 days) and the platform's own clock follow.

create or replace function mdame.mark_publication_published(p_publication_id uuid, p_external_id text, p_run_id uuid)
returns mdame.publications
language plpgsql
set search_path = ''
as $$
declare
  v_pub mdame.publications;
begin
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if v_pub.status = 'published' then
    return v_pub;
  end if;
  update mdame.publications set status = 'published', external_id = p_external_id, published_at = mdame.engine_now(), updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  perform mdame.log_event(p_run_id, v_pub.unit_id, 'publish', 'published',
    jsonb_build_object('platform', v_pub.platform, 'external_id', p_external_id));
  return v_pub;
end;
$$;

comment on function mdame.mark_publication_published(uuid,text,uuid) is 'internal: the one recording of an upload, for record_publication and complete_publication';
