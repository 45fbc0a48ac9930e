-- The scheduled drain (pg_cron job mdame-publish-drain, every minute): each unit at stage deferred
-- with a deferred publication whose time has come (not_before passed on the engine's clock,
-- mdame.engine_now, or none) on an active, healthy, connected account goes back to stage publish
-- with its publish task sent again (the same step token; its publications keep their stored upload
-- sessions). The publish stage then tries its unpublished accounts again, and a bucket still spent
-- defers them again. Returns how many units were sent.

create or replace function mdame.drain_deferred_publications()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_sent integer := 0;
begin
  for v_unit in
    select u.* from mdame.work_units u
     where u.stage = 'deferred'
       and exists (select 1 from mdame.publications p join mdame.dimension_accounts a on a.id = p.account_id
                    where p.unit_id = u.id and p.status = 'deferred' and a.active and a.health_state = 'ok'
                      and a.credentials_enc is not null and coalesce(p.not_before, '-infinity') <= mdame.engine_now())
     order by u.updated_at
     for update of u skip locked
  loop
    perform mdame.set_unit_stage(v_unit.id, 'publish');
    perform mdame.enqueue_stage_task('publish', v_unit.run_id, v_unit.id);
    v_sent := v_sent + 1;
  end loop;
  return v_sent;
end;
$$;
