-- Today's trigger (manual without a caller key, or the daily cron): starts the dimensions in scope
-- whose current configuration no run of this environment and day has started, keyed by their
-- configurations; returns the day's latest run covering the scope when every one is started already.
-- p_run_date null: each dimension's own local date on the engine clock (mdame.local_run_date), as the
-- scheduled trigger dates its runs; dimensions on different local dates (the hours around midnight)
-- start one run per date, the earliest first.

create or replace function mdame.trigger_run(p_env text, p_trigger_kind text, p_run_date date, p_dimension text default null::text)
returns table(run_id uuid, status text, created boolean)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamp with time zone := mdame.engine_now();
  v_day record;
  v_dates date[] := '{}';
  v_started boolean := false;
  v_run mdame.pipeline_runs;
begin
  perform mdame.assert_environment(p_env);
  if p_dimension is not null and not exists (select 1 from mdame.dimensions d where d.id = p_dimension and d.active) then
    raise exception 'no active dimension %', p_dimension using errcode = 'MDN01';
  end if;
  -- Two triggers at once see the same runs of the day: the second finds what the first started.
  perform pg_advisory_xact_lock(hashtextextended('mdame.trigger_run:' || p_env, 0));

  for v_day in
    select scope.run_date, jsonb_object_agg(scope.id, scope.hash) filter (where scope.changed) as changed
      from (select d.id, x.run_date, x.hash,
                   not exists (
                     select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
                      where r.env = p_env and r.run_date = x.run_date and rd.dimension_id = d.id and rd.config_hash = x.hash) as changed
              from mdame.dimensions d
             cross join lateral (select coalesce(p_run_date, mdame.local_run_date(d.publishing, v_now)) as run_date,
                                        mdame.config_hash(mdame.dimension_config(d)) as hash) x
             where d.active and (p_dimension is null or d.id = p_dimension)) scope
     group by scope.run_date
     order by scope.run_date
  loop
    v_dates := v_dates || v_day.run_date;
    if v_day.changed is not null then
      v_started := true;
      return query select * from mdame.start_run(mdame.run_key(p_env, v_day.run_date, p_trigger_kind, v_day.changed), p_env, p_trigger_kind,
                                                 v_day.run_date, p_dimension, array(select jsonb_object_keys(v_day.changed)));
    end if;
  end loop;
  if v_started then
    return;
  end if;

  if cardinality(v_dates) > 0 then
    select r.* into v_run from mdame.pipeline_runs r
     where r.env = p_env and r.run_date = any (v_dates)
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

  -- No active dimension in scope: start_run answers as it does for an empty scope.
  return query select * from mdame.start_run(mdame.run_key(p_env, coalesce(p_run_date, (v_now at time zone 'UTC')::date), p_trigger_kind, '{}'::jsonb),
                                             p_env, p_trigger_kind, coalesce(p_run_date, (v_now at time zone 'UTC')::date), p_dimension, '{}'::text[]);
end;
$$;
