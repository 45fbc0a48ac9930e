-- Today's trigger (manual without a caller key, or the daily cron): starts the dimensions in scope
-- whose current configuration no run of this environment and day has started, keyed by their
-- configurations; returns the day's latest run covering the scope when every one is started already.

create or replace function mdame.trigger_run(p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null::text)
returns table(run_id uuid, status text, created boolean)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_changed jsonb := '{}'::jsonb;
  v_dimension mdame.dimensions;
  v_hash text;
  v_run mdame.pipeline_runs;
begin
  perform mdame.assert_environment(p_env);
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;
  -- Two triggers at once see the same runs of the day: the second finds what the first started.
  perform pg_advisory_xact_lock(hashtextextended('mdame.trigger_run:' || p_env, 0));

  for v_dimension in
    select * from mdame.dimensions d where d.active and (p_dimension is null or d.id = p_dimension) order by d.id
  loop
    v_hash := mdame.config_hash(mdame.dimension_config(v_dimension));
    if not exists (
      select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
       where r.env = p_env and r.run_date = p_run_date and rd.dimension_id = v_dimension.id and rd.config_hash = v_hash) then
      v_changed := v_changed || jsonb_build_object(v_dimension.id, v_hash);
    end if;
  end loop;

  if v_changed = '{}'::jsonb then
    select r.* into v_run from mdame.pipeline_runs r
     where r.env = p_env and r.run_date = p_run_date
       and exists (select 1 from mdame.run_dimensions rd join mdame.dimensions d on d.id = rd.dimension_id
                    where rd.run_id = r.id and d.active and (p_dimension is null or d.id = p_dimension))
     order by r.created_at desc
     limit 1;
    if found then
      perform mdame.close_run_if_done(v_run.id);
      return query select r.id, r.status, false from mdame.pipeline_runs r where r.id = v_run.id;
      return;
    end if;
  end if;

  return query select * from mdame.start_run(mdame.run_key(p_env, p_run_date, p_trigger_kind, v_changed), p_env, p_trigger_kind,
                                             p_run_date, p_dimension, array(select jsonb_object_keys(v_changed)));
end;
$$;
