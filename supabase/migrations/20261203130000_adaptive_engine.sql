-- The adaptive engine: the dimension's adapt contract, the record of moves, the weekly decisions
-- and the overlay that makes a run use the moves in force (docs/adaptive.md).

alter table mdame.dimensions add column adapt jsonb not null default '{"pinned": [], "min_sample": 8, "video_length": {"step_s": 3, "spread_s": 4, "target_s": null}, "daily_volume": {"max": null, "min": null, "step": 1}, "min_effect_pp": 3, "cooldown_weeks": 4, "hook_threshold": {"max": 0.85, "min": 0.65, "step": 0.02, "value": 0.72}, "source_weights": {"max": 1, "min": 0.2, "step": 0.1}, "topic_categories": {"boost": 0.15, "avoided": [], "favoured": []}}'::jsonb;
alter table mdame.dimensions add constraint dimensions_adapt_check check ((jsonb_typeof(adapt) = 'object'::text));
comment on column mdame.dimensions.adapt is 'What the adaptive engine may move: bounds, steps, pins (shared/contracts/adapt.ts, docs/adaptive.md).';

-- The adaptive engine's record: every move of a dimension's bounded parameter, with the evidence it
-- was decided on. A run's configuration is the dimension's contract overlaid with the newest applied,
-- unreverted move of each parameter (mdame.apply_adaptations); a revert stamps reverted_at, so the
-- move before it (or the contract) is in force again. week_start names the weekly decision that made
-- it (one move per dimension, parameter and week); null for a move the operator asked for.
create table mdame.adaptations (
  id uuid not null default gen_random_uuid(),
  dimension_id text not null,
  parameter text not null,
  before jsonb not null,
  after jsonb not null,
  reason text not null,
  evidence jsonb not null default '{}'::jsonb,
  week_start date,
  decided_at timestamp with time zone not null,
  applied boolean not null default true,
  reverted_at timestamp with time zone,
  seq bigint generated always as identity,
  constraint adaptations_pkey primary key (id),
  constraint adaptations_dimension_id_fkey foreign key (dimension_id) references mdame.dimensions(id),
  constraint adaptations_parameter_check check ((parameter ~ '^(daily_volume|hook_threshold|video_length|source_weight\.[a-z_]+|topic_category\.[a-z0-9][a-z0-9 &''._-]{0,59})$'::text)),
  constraint adaptations_reason_check check (((length(reason) >= 1) and (length(reason) <= 2000))),
  constraint adaptations_evidence_check check ((jsonb_typeof(evidence) = 'object'::text))
);

create unique index adaptations_weekly_key on mdame.adaptations (dimension_id, parameter, week_start) where (week_start is not null);
create index adaptations_in_force_idx on mdame.adaptations (dimension_id, parameter, seq desc) where (applied and (reverted_at is null));

alter table mdame.adaptations enable row level security;

-- The weekly decisions: the Sunday job (schedules.sql) marks the week due and wakes the runner; the
-- tick claims the week, decides for every dimension and marks it finished. A claim older than 15
-- minutes without a finish is taken over (the runner died mid-week): the decisions are idempotent.
create table mdame.adaptation_weeks (
  week_start date not null,
  due_at timestamp with time zone not null,
  claimed_at timestamp with time zone,
  finished_at timestamp with time zone,
  constraint adaptation_weeks_pkey primary key (week_start)
);

alter table mdame.adaptation_weeks enable row level security;

-- The value of one adaptive parameter in a configuration (as mdame.dimension_config gives it):
-- a number, or a category's level ("favoured", "neutral", "avoided"); null for a source kind the
-- configuration does not list.

create or replace function mdame.adaptation_value(p_config jsonb, p_parameter text)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select case
    when p_parameter = 'daily_volume' then p_config->'daily_limit'
    when p_parameter = 'hook_threshold' then p_config->'adapt'->'hook_threshold'->'value'
    when p_parameter = 'video_length' then p_config->'adapt'->'video_length'->'target_s'
    when p_parameter like 'source_weight.%' then
      (select s.value->'weight' from jsonb_array_elements(p_config->'sources') with ordinality s(value, ord)
        where s.value->>'kind' = substr(p_parameter, length('source_weight.') + 1) order by s.ord limit 1)
    when p_parameter like 'topic_category.%' then
      case when coalesce(p_config->'adapt'->'topic_categories'->'favoured', '[]'::jsonb) ? substr(p_parameter, length('topic_category.') + 1) then '"favoured"'::jsonb
           when coalesce(p_config->'adapt'->'topic_categories'->'avoided', '[]'::jsonb) ? substr(p_parameter, length('topic_category.') + 1) then '"avoided"'::jsonb
           else '"neutral"'::jsonb end
  end;
$$;

comment on function mdame.adaptation_value(jsonb,text) is 'internal: one adaptive parameter of a configuration';

revoke all on function mdame.adaptation_value(jsonb,text) from public, anon, authenticated;

-- A dimension's configuration overlaid with its adaptations in force: for each parameter, the
-- newest applied move not reverted. What a run uses (mdame.dimension_config), so a move takes effect
-- on the next run and a revert gives the value before it back.

create or replace function mdame.apply_adaptations(p_config jsonb, p_dimension_id text)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v jsonb := p_config;
  r record;
  v_name text;
begin
  for r in
    select distinct on (a.parameter) a.parameter, a.after
      from mdame.adaptations a
     where a.dimension_id = p_dimension_id and a.applied and a.reverted_at is null
     order by a.parameter, a.seq desc
  loop
    if r.parameter = 'daily_volume' then
      v := jsonb_set(v, '{daily_limit}', r.after);
    elsif r.parameter = 'hook_threshold' and jsonb_typeof(v->'adapt'->'hook_threshold') = 'object' then
      v := jsonb_set(v, '{adapt,hook_threshold,value}', r.after);
    elsif r.parameter = 'video_length' and jsonb_typeof(v->'adapt'->'video_length') = 'object' then
      v := jsonb_set(v, '{adapt,video_length,target_s}', r.after);
    elsif r.parameter like 'source_weight.%' and jsonb_typeof(v->'sources') = 'array' then
      v_name := substr(r.parameter, length('source_weight.') + 1);
      v := jsonb_set(v, '{sources}', (
        select coalesce(jsonb_agg(case when s.value->>'kind' = v_name then jsonb_set(s.value, '{weight}', r.after) else s.value end order by s.ord), '[]'::jsonb)
          from jsonb_array_elements(v->'sources') with ordinality as s(value, ord)));
    elsif r.parameter like 'topic_category.%' and jsonb_typeof(v->'adapt'->'topic_categories') = 'object' then
      v_name := substr(r.parameter, length('topic_category.') + 1);
      v := jsonb_set(v, '{adapt,topic_categories,favoured}',
             coalesce((select jsonb_agg(c) from jsonb_array_elements(v->'adapt'->'topic_categories'->'favoured') c where c <> to_jsonb(v_name)), '[]'::jsonb)
             || case when r.after = '"favoured"'::jsonb then jsonb_build_array(v_name) else '[]'::jsonb end);
      v := jsonb_set(v, '{adapt,topic_categories,avoided}',
             coalesce((select jsonb_agg(c) from jsonb_array_elements(v->'adapt'->'topic_categories'->'avoided') c where c <> to_jsonb(v_name)), '[]'::jsonb)
             || case when r.after = '"avoided"'::jsonb then jsonb_build_array(v_name) else '[]'::jsonb end);
    end if;
  end loop;
  return v;
end;
$$;

comment on function mdame.apply_adaptations(jsonb,text) is 'internal: a configuration overlaid with the adaptations in force';

revoke all on function mdame.apply_adaptations(jsonb,text) from public, anon, authenticated;

-- A dimension's configuration as a run uses it: every column but its state (active) and bookkeeping
-- times, overlaid with the adaptive engine's moves in force (mdame.apply_adaptations).

create or replace function mdame.dimension_config(p_dimension mdame.dimensions)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select mdame.apply_adaptations(to_jsonb(p_dimension) - 'active' - 'created_at' - 'updated_at', p_dimension.id);
$$;

revoke all on function mdame.dimension_config(mdame.dimensions) from public, anon, authenticated;
grant execute on function mdame.dimension_config(mdame.dimensions) to mdame_engine;
grant execute on function mdame.dimension_config(mdame.dimensions) to service_role;

-- The evidence of the adaptive engine: each published video of a dimension made since p_since, with
-- the parameters it was made with (the run's configuration and the unit's own, topic->'adapt') and
-- its latest YouTube Analytics figures (day 7 when fetched, else day 3). Videos without figures yet
-- are left out.

create or replace function mdame.get_adaptation_evidence(p_dimension_id text, p_since timestamp with time zone)
returns table (
  unit_id uuid,
  made_at timestamp with time zone,
  run_date date,
  window_days integer,
  retention double precision,
  engaged_views bigint,
  hook_score double precision,
  hook_threshold double precision,
  source text,
  categories jsonb,
  unit_params jsonb,
  daily_volume integer,
  day_units integer
)
language sql
stable security definer
set search_path = ''
as $$
  select u.id, u.created_at, r.run_date, va.window_days,
         va.average_view_percentage::double precision, va.engaged_views,
         (u.script->>'hook_score')::double precision,
         coalesce((rd.config->'adapt'->'hook_threshold'->>'value')::double precision, 0.72),
         u.topic->>'source',
         coalesce(u.topic->'categories', '[]'::jsonb),
         coalesce(u.topic->'adapt', '{}'::jsonb),
         coalesce((rd.config->>'daily_limit')::integer, 0),
         (select count(*)::integer from mdame.work_units u2 join mdame.pipeline_runs r2 on r2.id = u2.run_id
           where u2.dimension_id = u.dimension_id and r2.run_date = r.run_date)
    from mdame.work_units u
    join mdame.pipeline_runs r on r.id = u.run_id
    left join mdame.run_dimensions rd on rd.run_id = u.run_id and rd.dimension_id = u.dimension_id
    join lateral (
      select v.window_days, v.average_view_percentage, v.engaged_views
        from mdame.publications p join mdame.video_analytics v on v.publication_id = p.id
       where p.unit_id = u.id
       order by v.window_days desc, v.fetched_at desc
       limit 1) va on true
   where u.dimension_id = p_dimension_id and u.created_at >= p_since
   order by u.created_at, u.id;
$$;

revoke all on function mdame.get_adaptation_evidence(text,timestamp with time zone) from public, anon, authenticated;
grant execute on function mdame.get_adaptation_evidence(text,timestamp with time zone) to mdame_engine;
grant execute on function mdame.get_adaptation_evidence(text,timestamp with time zone) to service_role;

-- Records one move of a dimension's parameter and applies it (the next run's configuration uses it).
-- Guards: the dimension exists (MDN01); the parameter is not pinned (MDS01); `before` is the value in
-- force now, so a decision made on a stale reading is refused (MDS01). A weekly move already
-- recorded for the same dimension, parameter and week is returned unchanged (idempotent).

create or replace function mdame.record_adaptation(
  p_dimension_id text, p_parameter text, p_before jsonb, p_after jsonb, p_reason text, p_evidence jsonb, p_week_start date)
returns mdame.adaptations
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_dimension mdame.dimensions;
  v_row mdame.adaptations;
  v_current jsonb;
  v_pinned jsonb;
begin
  select * into v_dimension from mdame.dimensions where id = p_dimension_id for update;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  if p_week_start is not null then
    select * into v_row from mdame.adaptations
     where dimension_id = p_dimension_id and parameter = p_parameter and week_start = p_week_start;
    if found then
      return v_row;
    end if;
  end if;
  v_pinned := coalesce(v_dimension.adapt->'pinned', '[]'::jsonb);
  if v_pinned ? p_parameter
     or (p_parameter like 'source_weight.%' and v_pinned ? 'source_weights')
     or (p_parameter like 'topic_category.%' and v_pinned ? 'topic_categories') then
    raise exception '% of dimension % is pinned (mdame adapt unpin % %)', p_parameter, p_dimension_id, p_dimension_id, p_parameter
      using errcode = 'MDS01';
  end if;
  v_current := mdame.adaptation_value(mdame.dimension_config(v_dimension), p_parameter);
  if v_current is distinct from p_before and not (jsonb_typeof(v_current) = 'number' and jsonb_typeof(p_before) = 'number'
                                                  and (v_current#>>'{}')::numeric = (p_before#>>'{}')::numeric) then
    raise exception '% of dimension % is % now, not %: decide again', p_parameter, p_dimension_id, v_current, p_before
      using errcode = 'MDS01';
  end if;
  insert into mdame.adaptations (dimension_id, parameter, before, after, reason, evidence, week_start, decided_at)
  values (p_dimension_id, p_parameter, p_before, p_after, p_reason, coalesce(p_evidence, '{}'::jsonb), p_week_start, mdame.engine_now())
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.record_adaptation(text,text,jsonb,jsonb,text,jsonb,date) from public, anon, authenticated;
grant execute on function mdame.record_adaptation(text,text,jsonb,jsonb,text,jsonb,date) to mdame_engine;
grant execute on function mdame.record_adaptation(text,text,jsonb,jsonb,text,jsonb,date) to service_role;

-- The recorded adaptations, newest first; of one dimension when p_dimension_id is given.

create or replace function mdame.list_adaptations(p_dimension_id text, p_limit integer)
returns setof mdame.adaptations
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.adaptations
   where p_dimension_id is null or dimension_id = p_dimension_id
   order by seq desc
   limit least(greatest(coalesce(p_limit, 50), 1), 500);
$$;

revoke all on function mdame.list_adaptations(text,integer) from public, anon, authenticated;
grant execute on function mdame.list_adaptations(text,integer) to mdame_engine;
grant execute on function mdame.list_adaptations(text,integer) to service_role;

-- Reverts one adaptation: the value before it is in force again from the next run. Only the move in
-- force for its parameter may be reverted (a later one would hide the revert: MDS01); reverting one
-- already reverted returns it unchanged.

create or replace function mdame.revert_adaptation(p_id uuid)
returns mdame.adaptations
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.adaptations;
  v_latest uuid;
begin
  select * into v_row from mdame.adaptations where id = p_id;
  if not found then
    raise exception 'no adaptation %', p_id using errcode = 'MDN01';
  end if;
  perform 1 from mdame.dimensions where id = v_row.dimension_id for update;
  select * into v_row from mdame.adaptations where id = p_id for update;
  if v_row.reverted_at is not null then
    return v_row;
  end if;
  select a.id into v_latest from mdame.adaptations a
   where a.dimension_id = v_row.dimension_id and a.parameter = v_row.parameter and a.applied and a.reverted_at is null
   order by a.seq desc limit 1;
  if v_latest is distinct from v_row.id then
    raise exception 'adaptation % is not the one in force for % of %: revert % first', p_id, v_row.parameter, v_row.dimension_id, v_latest
      using errcode = 'MDS01';
  end if;
  update mdame.adaptations set reverted_at = mdame.engine_now() where id = p_id returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.revert_adaptation(uuid) from public, anon, authenticated;
grant execute on function mdame.revert_adaptation(uuid) to mdame_engine;
grant execute on function mdame.revert_adaptation(uuid) to service_role;

-- Pins a dimension's parameter (it never moves) or unpins it: adds it to or removes it from
-- dimensions.adapt.pinned. Pinning twice or unpinning what is not pinned changes nothing. Returns
-- the pins after the change.

create or replace function mdame.set_adaptation_pin(p_dimension_id text, p_parameter text, p_pinned boolean)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pins jsonb;
begin
  select coalesce(adapt->'pinned', '[]'::jsonb) into v_pins from mdame.dimensions where id = p_dimension_id for update;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  v_pins := coalesce((select jsonb_agg(p order by p) from (
    select distinct value as p from jsonb_array_elements_text(v_pins)
     where value <> p_parameter
    union
    select p_parameter where p_pinned) x), '[]'::jsonb);
  update mdame.dimensions set adapt = jsonb_set(adapt, '{pinned}', v_pins), updated_at = now() where id = p_dimension_id;
  return v_pins;
end;
$$;

revoke all on function mdame.set_adaptation_pin(text,text,boolean) from public, anon, authenticated;
grant execute on function mdame.set_adaptation_pin(text,text,boolean) to mdame_engine;
grant execute on function mdame.set_adaptation_pin(text,text,boolean) to service_role;

-- The Sunday job (schedules.sql): marks the week ending now due for the adaptive decisions and
-- wakes the runner, whose tick claims it (mdame.claim_adaptation_week). Marking it again changes nothing.

create or replace function mdame.mark_adaptation_week_due()
returns date
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_week date := date_trunc('week', mdame.engine_now() at time zone 'UTC')::date;
begin
  insert into mdame.adaptation_weeks (week_start, due_at) values (v_week, mdame.engine_now())
  on conflict (week_start) do nothing;
  perform mdame.wake_stage_runner('adapt');
  return v_week;
end;
$$;

revoke all on function mdame.mark_adaptation_week_due() from public, anon, authenticated;
grant execute on function mdame.mark_adaptation_week_due() to mdame_engine;
grant execute on function mdame.mark_adaptation_week_due() to service_role;

-- The oldest week due for the adaptive decisions that nobody is deciding (unclaimed, or claimed more
-- than 15 minutes ago without finishing), claimed now; null when there is none.

create or replace function mdame.claim_adaptation_week()
returns date
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_week date;
begin
  select w.week_start into v_week from mdame.adaptation_weeks w
   where w.finished_at is null and (w.claimed_at is null or w.claimed_at < mdame.engine_now() - interval '15 minutes')
   order by w.week_start
   limit 1
   for update skip locked;
  if v_week is null then
    return null;
  end if;
  update mdame.adaptation_weeks set claimed_at = mdame.engine_now() where week_start = v_week;
  return v_week;
end;
$$;

revoke all on function mdame.claim_adaptation_week() from public, anon, authenticated;
grant execute on function mdame.claim_adaptation_week() to mdame_engine;
grant execute on function mdame.claim_adaptation_week() to service_role;

-- Marks a claimed week's decisions done; finishing it again changes nothing.

create or replace function mdame.finish_adaptation_week(p_week_start date)
returns mdame.adaptation_weeks
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.adaptation_weeks;
begin
  update mdame.adaptation_weeks set finished_at = coalesce(finished_at, mdame.engine_now())
   where week_start = p_week_start returning * into v_row;
  if not found then
    raise exception 'no adaptation week %', p_week_start using errcode = 'MDN01';
  end if;
  return v_row;
end;
$$;

revoke all on function mdame.finish_adaptation_week(date) from public, anon, authenticated;
grant execute on function mdame.finish_adaptation_week(date) to mdame_engine;
grant execute on function mdame.finish_adaptation_week(date) to service_role;

-- A dimension's configuration as its next run would start it: the contract overlaid with the
-- adaptations in force (mdame.dimension_config); null for an unknown dimension.

create or replace function mdame.get_effective_dimension_config(p_dimension_id text)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select mdame.dimension_config(d) from mdame.dimensions d where d.id = p_dimension_id;
$$;

revoke all on function mdame.get_effective_dimension_config(text) from public, anon, authenticated;
grant execute on function mdame.get_effective_dimension_config(text) to mdame_engine;
grant execute on function mdame.get_effective_dimension_config(text) to service_role;

do $$
begin
  if not exists (select 1 from cron.job where jobname = 'mdame-adapt-weekly') then
    perform cron.schedule('mdame-adapt-weekly', '30 22 * * 0', 'select mdame.mark_adaptation_week_due()');
  end if;
end
$$;

select mdame.restrict_function_privileges();
