-- Rejects a unit awaiting review (docs/guides/review.md): the unit ends rejected with the reason
-- (nothing of it is ever uploaded: it never reaches stage publish), the reason stays on its review
-- for the weekly report and the adaptive engine's evidence, and the run closes if this was its last
-- open unit. A repeated rejection returns the review unchanged; an approved review, or a unit no
-- longer awaiting review, is refused. p_decided_by is operator, or expiry for expire_reviews.

create or replace function mdame.reject_review(p_unit_id uuid, p_reason text, p_decided_by text default 'operator'::text)
returns mdame.unit_reviews
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_review mdame.unit_reviews;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  select * into v_review from mdame.unit_reviews where unit_id = p_unit_id for update;
  if not found then
    raise exception 'work unit % was never sent for review', p_unit_id using errcode = 'MDN01';
  end if;
  if v_review.decision = 'rejected' then
    return v_review;
  end if;
  if v_review.decision = 'approved' then
    raise exception 'the review of work unit % was approved already', p_unit_id using errcode = 'MDS01';
  end if;
  if v_unit.stage <> 'awaiting_review' then
    raise exception 'work unit % is at stage % and awaits no review', p_unit_id, v_unit.stage using errcode = 'MDS01';
  end if;
  if p_decided_by is null or p_decided_by not in ('operator', 'expiry') then
    raise exception 'a review is decided by operator or expiry, not %', coalesce(p_decided_by, 'null') using errcode = '22023';
  end if;
  if p_reason is null or btrim(p_reason) = '' or length(p_reason) > 500 then
    raise exception 'a rejection needs a reason of 1 to 500 characters' using errcode = '22023';
  end if;

  update mdame.unit_reviews
     set decision = 'rejected', decided_by = p_decided_by, decided_at = mdame.engine_now(), reason = btrim(p_reason)
   where unit_id = p_unit_id
  returning * into v_review;
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'awaiting_review', 'review_rejected',
    jsonb_build_object('decided_by', p_decided_by, 'reason', v_review.reason));
  perform mdame.set_unit_stage(p_unit_id, 'rejected', 'rejected in review: ' || v_review.reason);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_review;
end;
$$;
