-- The end of a thumbnail set: with p_error null the thumbnail is set (status set, its message
-- archived, an event thumbnail_set recorded); with p_give_up the set is given up for good
-- (given_up, archived, an event thumbnail_set_given_up with the reason); otherwise the reason is
-- kept and its message becomes visible again p_delay_s seconds from now (pgmq.set_vt; 1 s .. 7 days).
-- A set no longer queued is returned unchanged (a late or repeated call). An unknown set is MDN01;
-- a bad delay or a give-up without a reason 22023.

create or replace function mdame.finish_thumbnail_set(p_publication_id uuid, p_msg_id bigint, p_error text default null::text,
  p_delay_s integer default null::integer, p_give_up boolean default false)
returns mdame.thumbnail_sets
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_set mdame.thumbnail_sets;
  v_unit mdame.work_units;
  v_failed boolean := p_error is not null;
begin
  if v_failed and btrim(p_error) = '' then
    raise exception 'a reason is needed' using errcode = '22023';
  end if;
  if v_failed and not coalesce(p_give_up, false) and (p_delay_s is null or p_delay_s < 1 or p_delay_s > 7 * 86400) then
    raise exception 'the delay must be 1 s .. 7 days, not %', coalesce(p_delay_s::text, '(none)') using errcode = '22023';
  end if;
  select * into v_set from mdame.thumbnail_sets where publication_id = p_publication_id for update;
  if not found then
    raise exception 'no thumbnail set of publication %', p_publication_id using errcode = 'MDN01';
  end if;
  if v_set.status <> 'queued' then
    return v_set;
  end if;
  if v_failed and not coalesce(p_give_up, false) then
    update mdame.thumbnail_sets set last_error = left(p_error, 1000) where publication_id = p_publication_id returning * into v_set;
    perform pgmq.set_vt('thumbnail_sets', p_msg_id, p_delay_s);
    return v_set;
  end if;
  update mdame.thumbnail_sets
     set status = case when v_failed then 'given_up' else 'set' end, finished_at = mdame.engine_now(),
         last_error = case when v_failed then left(p_error, 1000) else last_error end
   where publication_id = p_publication_id
  returning * into v_set;
  perform pgmq.archive('thumbnail_sets', p_msg_id);
  select u.* into v_unit from mdame.work_units u join mdame.publications p on p.unit_id = u.id where p.id = p_publication_id;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'publish', case when v_failed then 'thumbnail_set_given_up' else 'thumbnail_set' end,
    jsonb_build_object('publication_id', p_publication_id, 'cover_key', v_set.cover_key, 'attempts', v_set.attempts)
      || case when v_failed then jsonb_build_object('reason', v_set.last_error) else '{}'::jsonb end);
  return v_set;
end;
$$;
