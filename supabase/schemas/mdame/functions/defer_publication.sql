-- Defers one publication: its account cannot publish now (quota_spent, channel_cap, rate_limited:
-- a platform's quota, cap or rate window) or until the operator reconnects it (needs_reconnect,
-- p_not_before null). The publication keeps its stored
-- upload session, so a deferred upload that had started resumes the same session later. A
-- published or skipped publication is returned unchanged. Locks the unit, then the publication, as
-- record_publication does.

create or replace function mdame.defer_publication(p_publication_id uuid, p_reason text, p_not_before timestamp with time zone)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_unit mdame.work_units;
begin
  if p_reason is null or p_reason not in ('quota_spent', 'channel_cap', 'rate_limited', 'needs_reconnect') then
    raise exception 'unknown deferral reason %', p_reason using errcode = '22023';
  end if;
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_unit from mdame.work_units where id = v_pub.unit_id for update;
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if v_pub.status in ('published', 'skipped') then
    return v_pub;
  end if;
  update mdame.publications
     set status = 'deferred', deferred_reason = p_reason, not_before = p_not_before, updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'publish', 'publication_deferred', jsonb_build_object(
    'publication_id', v_pub.id, 'account_id', v_pub.account_id, 'reason', p_reason, 'not_before', p_not_before));
  return v_pub;
end;
$$;
