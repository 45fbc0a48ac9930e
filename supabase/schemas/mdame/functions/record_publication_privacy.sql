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
