-- The publish stage records each account's upload as soon as it is done (record_publication)
-- and completes the task once (complete_publication), instead of completing per account: the
-- stage runner owns the task's completion, and an account already uploaded stays published
-- whatever happens to the next one. Both record an upload through one internal step,
-- mark_publication_published.

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
  update mdame.publications set status = 'published', external_id = p_external_id, published_at = now(), updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  perform mdame.log_event(p_run_id, v_pub.unit_id, 'publish', 'published',
    jsonb_build_object('platform', v_pub.platform, 'external_id', p_external_id));
  return v_pub;
end;
$$;

comment on function mdame.mark_publication_published(uuid,text,uuid) is 'internal: the one recording of an upload, for record_publication and complete_publication';

revoke all on function mdame.mark_publication_published(uuid,text,uuid) from public, anon, authenticated;

create or replace function mdame.record_publication(p_msg_id bigint, p_publication_id uuid, p_external_id text, p_holder text)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_lock record;
begin
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(v_pub.unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  return mdame.mark_publication_published(p_publication_id, p_external_id, (v_lock.unit).run_id);
end;
$$;

revoke all on function mdame.record_publication(bigint,uuid,text,text) from public, anon, authenticated;
grant execute on function mdame.record_publication(bigint,uuid,text,text) to mdame_engine;
grant execute on function mdame.record_publication(bigint,uuid,text,text) to service_role;

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
                and not exists (select 1 from mdame.publications p where p.unit_id = v_pub.unit_id and p.account_id = a.id and p.status = 'published')) then
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

revoke all on function mdame.complete_publication(bigint,uuid,text,text,text) from public, anon, authenticated;
grant execute on function mdame.complete_publication(bigint,uuid,text,text,text) to mdame_engine;
grant execute on function mdame.complete_publication(bigint,uuid,text,text,text) to service_role;

select mdame.restrict_function_privileges();
