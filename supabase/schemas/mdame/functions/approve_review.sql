-- Approves a unit awaiting review (docs/guides/review.md): an edited title or description replaces
-- the script's (the originals kept in the review's edits), the unit moves to stage publish and its
-- publish task is queued, all in one transaction, so an approval either happened whole or not at
-- all and the publish stage takes it from there (crash-safe, one upload per account). A repeated
-- approval returns the review unchanged; a rejected review, or a unit no longer awaiting review
-- (its run aborted), is refused. p_decided_by is operator, or expiry for expire_reviews.

create or replace function mdame.approve_review(p_unit_id uuid, p_title text default null::text, p_description text default null::text,
                                                p_decided_by text default 'operator'::text)
returns mdame.unit_reviews
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_review mdame.unit_reviews;
  v_edits jsonb;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  select * into v_review from mdame.unit_reviews where unit_id = p_unit_id for update;
  if not found then
    raise exception 'work unit % was never sent for review', p_unit_id using errcode = 'MDN01';
  end if;
  if v_review.decision = 'approved' then
    return v_review;
  end if;
  if v_review.decision = 'rejected' then
    raise exception 'the review of work unit % was rejected (%)', p_unit_id, v_review.reason using errcode = 'MDS01';
  end if;
  if v_unit.stage <> 'awaiting_review' then
    raise exception 'work unit % is at stage % and awaits no review', p_unit_id, v_unit.stage using errcode = 'MDS01';
  end if;
  if p_decided_by is null or p_decided_by not in ('operator', 'expiry') then
    raise exception 'a review is decided by operator or expiry, not %', coalesce(p_decided_by, 'null') using errcode = '22023';
  end if;
  if (p_title is not null and btrim(p_title) = '') or (p_description is not null and btrim(p_description) = '') then
    raise exception 'an edited title or description must not be empty' using errcode = '22023';
  end if;

  v_edits := jsonb_strip_nulls(jsonb_build_object(
    'title', case when p_title is distinct from v_unit.script->>'title' and p_title is not null then v_unit.script->'title' end,
    'description', case when p_description is distinct from v_unit.script->>'description' and p_description is not null then v_unit.script->'description' end));
  if v_edits <> '{}'::jsonb then
    update mdame.work_units
       set script = script || jsonb_strip_nulls(jsonb_build_object('title', p_title, 'description', p_description))
     where id = p_unit_id;
  end if;
  update mdame.unit_reviews
     set decision = 'approved', decided_by = p_decided_by, decided_at = mdame.engine_now(),
         edits = nullif(v_edits, '{}'::jsonb)
   where unit_id = p_unit_id
  returning * into v_review;
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'awaiting_review', 'review_approved',
    jsonb_build_object('decided_by', p_decided_by, 'edited', coalesce((select array_agg(k) from jsonb_object_keys(v_edits) k), '{}')));
  perform mdame.set_unit_stage(p_unit_id, 'publish');
  perform mdame.enqueue_stage_task('publish', v_unit.run_id, p_unit_id);
  return v_review;
end;
$$;
