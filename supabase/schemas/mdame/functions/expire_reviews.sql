-- The minutely review expiry (pg_cron job mdame-review-expiry): every review still undecided when
-- its expires_at (on the engine's clock) has passed is decided by its on_expiry: publish approves
-- it unchanged, reject rejects it with the reason "expired". Locks the unit first, as approve_review
-- and reject_review do, skipping units a decision holds right now. Returns what it decided.

create or replace function mdame.expire_reviews()
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_due record;
  v_published integer := 0;
  v_rejected integer := 0;
begin
  for v_due in
    select r.unit_id, r.on_expiry, r.requested_at, r.expires_at
      from mdame.unit_reviews r
      join mdame.work_units u on u.id = r.unit_id
     where r.decision is null and r.expires_at <= mdame.engine_now() and u.stage = 'awaiting_review'
     order by r.expires_at
     limit 1000
     for update of u skip locked
  loop
    if v_due.on_expiry = 'publish' then
      perform mdame.approve_review(v_due.unit_id, null, null, 'expiry');
      v_published := v_published + 1;
    else
      perform mdame.reject_review(v_due.unit_id,
        format('expired: not reviewed within %s', v_due.expires_at - v_due.requested_at), 'expiry');
      v_rejected := v_rejected + 1;
    end if;
  end loop;
  return jsonb_build_object('published', v_published, 'rejected', v_rejected);
end;
$$;
