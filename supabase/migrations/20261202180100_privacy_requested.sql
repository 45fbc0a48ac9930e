-- A publication keeps the privacy the engine asked for beside the one the platform gave: a locked
-- upload is one whose two differ (a dimension may ask private or unlisted, and TikTok names its
-- levels its own way), no longer any upload that is not public.

alter table mdame.publications add column privacy_requested text;
comment on column mdame.publications.privacy_requested is 'The privacy the engine asked for (recorded with privacy_status): a difference means the platform locked the upload.';
comment on column mdame.publications.privacy_status is 'The privacy the platform gave the finished upload (YouTube status.privacyStatus, TikTok privacy_level); private when public was asked means the platform locked it.';

-- Records the privacy the platform gave a finished upload (YouTube's status.privacyStatus, the
-- TikTok privacy_level sent) beside the one the engine asked for. YouTube locks the uploads of an
-- API project that has not passed its audit private, TikTok posts an unaudited client's SELF_ONLY;
-- when the privacy differs from the one requested, an event says so (once), and
-- list_locked_publications reports it. A repeat keeps the first privacy recorded.

create or replace function mdame.record_publication_privacy(p_publication_id uuid, p_privacy_status text, p_requested text)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_run uuid;
begin
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  if v_pub.privacy_status is not null or p_privacy_status is null then
    return v_pub;
  end if;
  update mdame.publications set privacy_status = p_privacy_status, privacy_requested = p_requested, updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  if p_privacy_status is distinct from p_requested then
    select run_id into v_run from mdame.work_units where id = v_pub.unit_id;
    perform mdame.log_event(v_run, v_pub.unit_id, 'publish', 'publication_locked_private', jsonb_build_object(
      'publication_id', v_pub.id, 'account_id', v_pub.account_id, 'external_id', v_pub.external_id,
      'requested', p_requested, 'privacy_status', p_privacy_status));
  end if;
  return v_pub;
end;
$$;

revoke all on function mdame.record_publication_privacy(uuid,text,text) from public, anon, authenticated;
grant execute on function mdame.record_publication_privacy(uuid,text,text) to mdame_engine;
grant execute on function mdame.record_publication_privacy(uuid,text,text) to service_role;

-- Uploads a platform gave another privacy than the engine asked for (an unaudited API client's
-- uploads locked private), newest first, with their channel: what `mdame doctor` reports. Rows
-- recorded before the request was kept count as asked public.

create or replace function mdame.list_locked_publications(p_limit integer default 20)
returns table(publication_id uuid, account_id uuid, dimension_id text, channel_handle text, external_id text, privacy_status text, published_at timestamp with time zone)
language sql
stable security definer
set search_path = ''
as $$
  select p.id, a.id, a.dimension_id, a.channel_handle, p.external_id, p.privacy_status, p.published_at
    from mdame.publications p
    join mdame.dimension_accounts a on a.id = p.account_id
   where p.privacy_status is not null and p.privacy_status is distinct from coalesce(p.privacy_requested, 'public')
   order by p.published_at desc nulls last, p.id
   limit greatest(coalesce(p_limit, 20), 0);
$$;

revoke all on function mdame.list_locked_publications(integer) from public, anon, authenticated;
grant execute on function mdame.list_locked_publications(integer) to mdame_engine;
grant execute on function mdame.list_locked_publications(integer) to service_role;

select mdame.restrict_function_privileges();
