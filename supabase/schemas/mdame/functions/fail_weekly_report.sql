-- Records a failed attempt at building a weekly report: tried again after a backoff (1, 2, 4, 8
-- minutes), failed for good after its fifth attempt. A caller that no longer holds the row, or a row
-- already ready or failed, gets the row back unchanged.

create or replace function mdame.fail_weekly_report(p_id uuid, p_holder text, p_error text)
returns mdame.weekly_reports
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.weekly_reports;
  v_now timestamptz := mdame.engine_now();
begin
  select * into v_row from mdame.weekly_reports where id = p_id for update;
  if not found then
    raise exception 'no weekly report %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.lease_holder is distinct from p_holder then
    return v_row;
  end if;
  update mdame.weekly_reports
     set status = case when attempts >= 5 then 'failed' else 'pending' end,
         next_attempt_at = v_now + make_interval(secs => 60 * power(2, greatest(attempts - 1, 0))::integer),
         lease_holder = null,
         last_error = left(coalesce(p_error, 'unknown error'), 2000),
         updated_at = v_now
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;
