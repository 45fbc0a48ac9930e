-- Marks one publication done; when every active account of the dimension has its publication
-- published (or skipped: that account will not take the video), the unit is published and the
-- publish task archived.

create or replace function mdame.complete_publication(p_msg_id bigint, p_publication_id uuid, p_external_id text, p_step_token text, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(v_pub.unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  v_pub := mdame.mark_publication_published(p_publication_id, p_external_id, (v_lock.unit).run_id);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  if exists (select 1 from mdame.dimension_accounts a
              where a.dimension_id = (v_lock.unit).dimension_id and a.active
                and not exists (select 1 from mdame.publications p where p.unit_id = v_pub.unit_id and p.account_id = a.id and p.status in ('published', 'skipped'))) then
    return v_lock.unit;
  end if;
  perform mdame.store_step_result(p_step_token, (select jsonb_agg(jsonb_build_object('platform', platform, 'external_id', external_id))
                                                   from mdame.publications where unit_id = v_pub.unit_id));
  v_unit := mdame.set_unit_stage(v_pub.unit_id, 'published');
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
