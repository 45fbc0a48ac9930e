-- Returns the unit's publication for the account, creating it on the first call.

create or replace function mdame.begin_publication(p_unit_id uuid, p_account_id uuid)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_unit mdame.work_units;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if v_unit.video is null then
    raise exception 'work unit % has no rendered video', p_unit_id using errcode = 'MDS01';
  end if;
  insert into mdame.publications (unit_id, account_id, platform, video_key)
  select p_unit_id, a.id, a.platform, v_unit.video->>'video_key'
    from mdame.dimension_accounts a where a.id = p_account_id and a.dimension_id = v_unit.dimension_id
  on conflict (unit_id, account_id) do nothing;
  select * into v_pub from mdame.publications where unit_id = p_unit_id and account_id = p_account_id;
  if not found then
    raise exception 'account % does not belong to the dimension of unit %', p_account_id, p_unit_id using errcode = 'MDN01';
  end if;
  return v_pub;
end;
$$;
