-- A publication's published_at is stamped on the engine's clock: the analytics windows are counted
-- from it, and a soak that moves the clock must see them come due on the moved clock, as the
-- platform's own clock (moved with it) does.

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

revoke all on function mdame.mark_publication_published(uuid,text,uuid) from public, anon, authenticated;

select mdame.restrict_function_privileges();
