-- The publish stage's completion when some of the unit's accounts could not publish: every active
-- account of the dimension has a publication that is published, skipped or deferred (none pending,
-- none uploading), and at least one is deferred. The unit moves to stage deferred, which counts as done
-- for its run (the run closes), the publish task is archived, and no step result is stored: the
-- drain (drain_deferred_publications) sends the same step again once a deferral's time has come.
-- A unit found with every publication published is published instead. A late or stale call
-- returns the unit unchanged (lock_unit_at_stage); one with a publication still open is refused (MDS01).

create or replace function mdame.defer_unit_publish(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_open integer;
  v_deferred integer;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  select count(*) filter (where p.status is null or p.status not in ('published', 'skipped', 'deferred')),
         count(*) filter (where p.status = 'deferred')
    into v_open, v_deferred
    from mdame.dimension_accounts a
    left join mdame.publications p on p.unit_id = p_unit_id and p.account_id = a.id
   where a.dimension_id = (v_lock.unit).dimension_id and a.active;
  if v_open > 0 then
    raise exception 'unit % has % account(s) neither published, skipped nor deferred', p_unit_id, v_open using errcode = 'MDS01';
  end if;
  if v_deferred = 0 then
    perform mdame.store_step_result(p_step_token, (select jsonb_agg(jsonb_build_object('platform', platform, 'external_id', external_id))
                                                     from mdame.publications where unit_id = p_unit_id));
    v_unit := mdame.set_unit_stage(p_unit_id, 'published');
  else
    v_unit := mdame.set_unit_stage(p_unit_id, 'deferred');
  end if;
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
