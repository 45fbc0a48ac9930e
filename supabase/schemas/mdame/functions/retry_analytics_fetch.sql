-- A fetch that could not record its figures this time: with p_give_up false its message becomes
-- visible again p_delay_s seconds from now (pgmq.set_vt; 1 s .. 7 days) and the reason is kept;
-- with p_give_up true the fetch is given up for good: marked given_up, its message archived and an
-- event analytics_fetch_given_up recorded. A fetch no longer queued is returned unchanged (a late
-- or repeated call). An unknown fetch is MDN01; a bad delay or an empty reason 22023.

create or replace function mdame.retry_analytics_fetch(p_publication_id uuid, p_window_days integer, p_msg_id bigint,
  p_delay_s integer, p_reason text, p_give_up boolean default false)
returns mdame.analytics_fetches
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_fetch mdame.analytics_fetches;
  v_unit mdame.work_units;
begin
  if coalesce(btrim(p_reason), '') = '' then
    raise exception 'a reason is needed' using errcode = '22023';
  end if;
  if not coalesce(p_give_up, false) and (p_delay_s is null or p_delay_s < 1 or p_delay_s > 7 * 86400) then
    raise exception 'the delay must be 1 s .. 7 days, not %', coalesce(p_delay_s::text, '(none)') using errcode = '22023';
  end if;
  select * into v_fetch from mdame.analytics_fetches where publication_id = p_publication_id and window_days = p_window_days for update;
  if not found then
    raise exception 'no analytics fetch of publication % at % days', p_publication_id, p_window_days using errcode = 'MDN01';
  end if;
  if v_fetch.status <> 'queued' then
    return v_fetch;
  end if;
  if coalesce(p_give_up, false) then
    update mdame.analytics_fetches
       set status = 'given_up', finished_at = mdame.engine_now(), last_error = left(p_reason, 1000)
     where publication_id = p_publication_id and window_days = p_window_days
    returning * into v_fetch;
    perform pgmq.archive('analytics_fetches', p_msg_id);
    select u.* into v_unit from mdame.work_units u join mdame.publications p on p.unit_id = u.id where p.id = p_publication_id;
    perform mdame.log_event(v_unit.run_id, v_unit.id, 'analytics', 'analytics_fetch_given_up', jsonb_build_object(
      'publication_id', p_publication_id, 'window_days', p_window_days, 'attempts', v_fetch.attempts, 'reason', v_fetch.last_error));
    return v_fetch;
  end if;
  update mdame.analytics_fetches set last_error = left(p_reason, 1000)
   where publication_id = p_publication_id and window_days = p_window_days
  returning * into v_fetch;
  perform pgmq.set_vt('analytics_fetches', p_msg_id, p_delay_s);
  return v_fetch;
end;
$$;
