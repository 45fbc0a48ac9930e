-- The units awaiting review (docs/guides/review.md), the soonest to expire first, optionally of one
-- dimension: what `mdame review list`, the dashboard's Review page and GET /pipeline/reviews show.

create or replace function mdame.list_reviews(p_dimension_id text default null::text)
returns table (
  unit_id uuid,
  run_id uuid,
  dimension_id text,
  title text,
  requested_at timestamp with time zone,
  expires_at timestamp with time zone,
  on_expiry text,
  quality_passed boolean
)
language sql
stable security definer
set search_path = ''
as $$
  select r.unit_id, r.run_id, r.dimension_id, u.script->>'title', r.requested_at, r.expires_at, r.on_expiry,
         (u.quality->>'passed')::boolean
    from mdame.unit_reviews r
    join mdame.work_units u on u.id = r.unit_id
   where r.decision is null and u.stage = 'awaiting_review'
     and (p_dimension_id is null or r.dimension_id = p_dimension_id)
   order by r.expires_at, r.unit_id
   limit 500;
$$;
