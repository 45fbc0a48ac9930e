-- Takes up to p_limit pending weekly reports that are due, for p_lease_s seconds: each claim counts
-- an attempt and moves the row's next attempt past the lease, so a builder that dies leaves the row
-- to the next tick once the lease has run out. A row that has used its attempts (5) without being
-- completed or failed by its builder is marked failed instead of claimed again.

create or replace function mdame.claim_weekly_reports(p_holder text, p_limit integer default 5, p_lease_s integer default 300)
returns setof mdame.weekly_reports
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
begin
  if p_holder is null or btrim(p_holder) = '' then
    raise exception 'a holder is required' using errcode = '22023';
  end if;
  update mdame.weekly_reports w
     set status = 'failed', lease_holder = null, updated_at = v_now,
         last_error = coalesce(w.last_error, 'the builder stopped before finishing') || ' (gave up after ' || w.attempts || ' attempts)'
   where w.status = 'pending' and w.next_attempt_at <= v_now and w.attempts >= 5;
  return query
  with due as (
    select w.id from mdame.weekly_reports w
     where w.status = 'pending' and w.next_attempt_at <= v_now and w.attempts < 5
     order by w.next_attempt_at, w.id
     limit greatest(p_limit, 0)
     for update skip locked
  )
  update mdame.weekly_reports w
     set attempts = w.attempts + 1, lease_holder = p_holder,
         next_attempt_at = v_now + make_interval(secs => greatest(p_lease_s, 1)), updated_at = v_now
    from due
   where w.id = due.id
  returning w.*;
end;
$$;
