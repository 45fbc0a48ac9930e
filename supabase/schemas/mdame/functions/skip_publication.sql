-- Records that an account will not take this unit's video, with the reason an operator reads in the
-- run's status (a Facebook Reel must last 3 to 90 seconds; a platform that cannot give the privacy
-- the dimension asks for): the publication ends skipped, counted as done for the unit like a
-- published one, and its account's other work and the unit's other accounts go on. A published or
-- already skipped publication is returned unchanged. Locks the unit, then the publication, as
-- record_publication does.

create or replace function mdame.skip_publication(p_publication_id uuid, p_reason text)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_unit mdame.work_units;
begin
  if coalesce(trim(p_reason), '') = '' or length(p_reason) > 1000 then
    raise exception 'a skipped publication needs its reason (1 to 1000 characters)' using errcode = '22023';
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
     set status = 'skipped', skip_reason = p_reason, deferred_reason = null, not_before = null, updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'publish', 'publication_skipped', jsonb_build_object(
    'publication_id', v_pub.id, 'account_id', v_pub.account_id, 'platform', v_pub.platform, 'reason', p_reason));
  return v_pub;
end;
$$;
