-- Reserves the upload's quota for the account's current UTC day, once per publication.

create or replace function mdame.reserve_quota(p_publication_id uuid)
returns mdame.quota_reservations
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_res mdame.quota_reservations;
  v_account mdame.dimension_accounts;
  v_units integer;
  v_used integer;
  v_day date;
begin
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_res from mdame.quota_reservations where publication_id = p_publication_id;
  if found then
    return v_res;
  end if;
  select r.run_date into v_day
    from mdame.work_units u join mdame.pipeline_runs r on r.id = u.run_id
   where u.id = v_pub.unit_id;
  select * into v_account from mdame.dimension_accounts where id = v_pub.account_id for update;
  select value::integer into v_units from mdame.settings where key = 'youtube_upload_quota_units';
  select coalesce(sum(units), 0) into v_used from mdame.quota_reservations where account_id = v_account.id and usage_date = v_day;
  if v_used + v_units > v_account.daily_quota_units then
    raise exception 'account % has % of % quota units left on %, an upload needs %',
      v_account.channel_handle, v_account.daily_quota_units - v_used, v_account.daily_quota_units, v_day, v_units using errcode = 'MDQ01';
  end if;
  insert into mdame.quota_reservations (publication_id, account_id, usage_date, units)
  values (p_publication_id, v_account.id, v_day, v_units)
  returning * into v_res;
  return v_res;
end;
$$;

revoke all on function mdame.reserve_quota(uuid) from public, anon, authenticated;
grant execute on function mdame.reserve_quota(uuid) to mdame_engine;
grant execute on function mdame.reserve_quota(uuid) to service_role;
