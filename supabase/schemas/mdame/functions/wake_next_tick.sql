-- Called by a tick whose time budget ran out with stage tasks still visible (POST /pipeline/tick,
-- `more`): posts the tick that carries on. Not bounded by stage_runner.max_ticks, since the caller
-- is one of the ticks in flight and ends as its successor starts; refusing it when every slot is
-- taken would leave the work to the minutely mdame-tick whenever all ticks end together. The tick
-- never calls itself again from its HTTP answer: pg_net ignores that answer on Supabase, so the
-- successor must come from the database. Returns the pg_net request id.

create or replace function mdame.wake_next_tick()
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
begin
  return mdame.post_tick_request('more');
end;
$$;
