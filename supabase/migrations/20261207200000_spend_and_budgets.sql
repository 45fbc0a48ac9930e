-- spend and budgets: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

alter table "mdame"."alerts" drop constraint "alerts_kind_check";

  create table "mdame"."provider_prices" (
    "provider" text not null,
    "model" text not null,
    "kind" text not null,
    "usd_per_unit" numeric not null,
    "default_usd_per_unit" numeric,
    "source" text not null default 'default'::text,
    "updated_at" timestamp with time zone not null default now()
      );

alter table "mdame"."provider_prices" enable row level security;

  create table "mdame"."provider_usage" (
    "id" bigint generated always as identity not null,
    "call_key" text not null,
    "provider" text not null,
    "model" text not null,
    "kind" text not null,
    "quantity" numeric not null,
    "usd_per_unit" numeric,
    "usd" numeric not null,
    "cached" boolean not null default false,
    "dimension_id" text,
    "run_id" uuid,
    "unit_id" uuid,
    "stage" text,
    "recorded_at" timestamp with time zone not null default now()
      );

alter table "mdame"."provider_usage" enable row level security;

alter table "mdame"."dimensions" add column "budget" jsonb;

CREATE UNIQUE INDEX provider_prices_pkey ON mdame.provider_prices USING btree (provider, model, kind);

CREATE UNIQUE INDEX provider_usage_call_kind_idx ON mdame.provider_usage USING btree (call_key, kind);

CREATE INDEX provider_usage_dimension_idx ON mdame.provider_usage USING btree (dimension_id, recorded_at);

CREATE UNIQUE INDEX provider_usage_pkey ON mdame.provider_usage USING btree (id);

CREATE INDEX provider_usage_unit_idx ON mdame.provider_usage USING btree (unit_id) WHERE (unit_id IS NOT NULL);

alter table "mdame"."provider_prices" add constraint "provider_prices_pkey" PRIMARY KEY using index "provider_prices_pkey";

alter table "mdame"."provider_usage" add constraint "provider_usage_pkey" PRIMARY KEY using index "provider_usage_pkey";

alter table "mdame"."dimensions" add constraint "dimensions_budget_check" CHECK (((budget IS NULL) OR ((jsonb_typeof(budget) = 'object'::text) AND ((budget - ARRAY['daily_usd'::text, 'monthly_usd'::text]) = '{}'::jsonb) AND ((NOT (budget ? 'daily_usd'::text)) OR ((jsonb_typeof((budget -> 'daily_usd'::text)) = 'number'::text) AND (((budget ->> 'daily_usd'::text))::numeric >= (0)::numeric))) AND ((NOT (budget ? 'monthly_usd'::text)) OR ((jsonb_typeof((budget -> 'monthly_usd'::text)) = 'number'::text) AND (((budget ->> 'monthly_usd'::text))::numeric >= (0)::numeric)))))) not valid;

alter table "mdame"."dimensions" validate constraint "dimensions_budget_check";

alter table "mdame"."provider_prices" add constraint "provider_prices_kind_check" CHECK ((kind = ANY (ARRAY['input_tokens'::text, 'output_tokens'::text, 'images'::text, 'characters'::text, 'audio_seconds'::text, 'requests'::text, 'gpu_seconds'::text]))) not valid;

alter table "mdame"."provider_prices" validate constraint "provider_prices_kind_check";

alter table "mdame"."provider_prices" add constraint "provider_prices_model_check" CHECK (((length(model) >= 1) AND (length(model) <= 120))) not valid;

alter table "mdame"."provider_prices" validate constraint "provider_prices_model_check";

alter table "mdame"."provider_prices" add constraint "provider_prices_provider_check" CHECK ((provider ~ '^[a-z][a-z0-9-]{1,40}$'::text)) not valid;

alter table "mdame"."provider_prices" validate constraint "provider_prices_provider_check";

alter table "mdame"."provider_prices" add constraint "provider_prices_source_check" CHECK ((source = ANY (ARRAY['default'::text, 'operator'::text]))) not valid;

alter table "mdame"."provider_prices" validate constraint "provider_prices_source_check";

alter table "mdame"."provider_prices" add constraint "provider_prices_usd_check" CHECK (((usd_per_unit >= (0)::numeric) AND (usd_per_unit <= (1000)::numeric))) not valid;

alter table "mdame"."provider_prices" validate constraint "provider_prices_usd_check";

alter table "mdame"."provider_usage" add constraint "provider_usage_call_key_check" CHECK (((length(call_key) >= 1) AND (length(call_key) <= 300))) not valid;

alter table "mdame"."provider_usage" validate constraint "provider_usage_call_key_check";

alter table "mdame"."provider_usage" add constraint "provider_usage_cost_check" CHECK (((usd >= (0)::numeric) AND ((NOT cached) OR (usd = (0)::numeric)))) not valid;

alter table "mdame"."provider_usage" validate constraint "provider_usage_cost_check";

alter table "mdame"."provider_usage" add constraint "provider_usage_kind_check" CHECK ((kind = ANY (ARRAY['input_tokens'::text, 'output_tokens'::text, 'images'::text, 'characters'::text, 'audio_seconds'::text, 'requests'::text, 'gpu_seconds'::text]))) not valid;

alter table "mdame"."provider_usage" validate constraint "provider_usage_kind_check";

alter table "mdame"."provider_usage" add constraint "provider_usage_quantity_check" CHECK ((quantity >= (0)::numeric)) not valid;

alter table "mdame"."provider_usage" validate constraint "provider_usage_quantity_check";

alter table "mdame"."alerts" add constraint "alerts_kind_check" CHECK ((kind = ANY (ARRAY['run_failed'::text, 'dead_letter'::text, 'needs_reconnect'::text, 'quota_deferral_stale'::text, 'quality_gate_failed'::text, 'component_restarting'::text, 'weekly_report'::text, 'engine_stopped'::text, 'engine_recovered'::text, 'workers_absent'::text, 'upload_locked'::text, 'quota_bucket_high'::text, 'spend_budget'::text]))) not valid;

alter table "mdame"."alerts" validate constraint "alerts_kind_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.alert_on_spend_budget(p_dimension_id text, p_blocked_period text DEFAULT NULL::text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_state record;
  v_period text;
  v_cap numeric;
  v_spent numeric;
  v_label text;
  v_threshold integer;
  v_key text;
begin
  select * into v_state from mdame.spend_budget_state(p_dimension_id);
  foreach v_period in array array['day', 'month'] loop
    if v_period = 'day' then
      v_cap := v_state.daily_usd; v_spent := v_state.spent_today;
      v_label := to_char(mdame.engine_now() at time zone 'UTC', 'YYYY-MM-DD');
    else
      v_cap := v_state.monthly_usd; v_spent := v_state.spent_month;
      v_label := to_char(mdame.engine_now() at time zone 'UTC', 'YYYY-MM');
    end if;
    continue when v_cap is null;
    v_threshold := case when v_spent >= v_cap or p_blocked_period = v_period then 100
                        when v_spent >= 0.8 * v_cap then 80 end;
    continue when v_threshold is null;
    v_key := format('spend_budget:%s:%s:%s', p_dimension_id, v_label, v_threshold);
    continue when exists (select 1 from mdame.alerts a where a.dedupe_key = v_key);
    perform mdame.raise_alert('spend_budget', p_dimension_id, v_key,
      format('%s has spent %s of its %s budget of %s USD for %s (%s %%)%s', p_dimension_id, round(v_spent, 4),
             case v_period when 'day' then 'daily' else 'monthly' end, v_cap, v_label,
             case when v_cap > 0 then round(100 * v_spent / v_cap) else 100 end,
             case when v_threshold = 100 then ': paid work is deferred until the period ends or the budget is raised' else '' end),
      jsonb_build_object('period', v_label, 'spent_usd', round(v_spent, 6), 'budget_usd', v_cap, 'threshold', v_threshold,
                         'fix', format('mdame spend --dimension %s', p_dimension_id)));
  end loop;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.check_spend_budget(p_dimension_id text, p_provider text, p_model text, p_estimate jsonb)
 RETURNS TABLE(fits boolean, period text, spent_usd numeric, budget_usd numeric, estimate_usd numeric, recheck_in_s integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_state record;
  v_estimate numeric := 0;
  v_kind text;
  v_quantity jsonb;
  v_recheck interval := mdame.setting_interval('spend_budget_recheck', interval '15 minutes');
begin
  if p_estimate is null or jsonb_typeof(p_estimate) <> 'object' then
    raise exception 'an estimate names unit kinds and their quantities' using errcode = '22023';
  end if;
  for v_kind, v_quantity in select key, value from jsonb_each(p_estimate) loop
    if jsonb_typeof(v_quantity) <> 'number' or v_quantity::numeric < 0 then
      raise exception 'the estimated quantity of % must be a number of at least 0', left(v_kind, 40) using errcode = '22023';
    end if;
    v_estimate := v_estimate + coalesce(mdame.spend_price(p_provider, p_model, v_kind), 0) * v_quantity::numeric;
  end loop;
  select * into v_state from mdame.spend_budget_state(p_dimension_id);
  estimate_usd := v_estimate;
  if v_estimate > 0 and v_state.daily_usd is not null and v_state.spent_today + v_estimate > v_state.daily_usd then
    fits := false; period := 'day'; spent_usd := v_state.spent_today; budget_usd := v_state.daily_usd;
    recheck_in_s := greatest(1, ceil(extract(epoch from least(v_state.day_ends_at - mdame.engine_now(), v_recheck)))::integer);
  elsif v_estimate > 0 and v_state.monthly_usd is not null and v_state.spent_month + v_estimate > v_state.monthly_usd then
    fits := false; period := 'month'; spent_usd := v_state.spent_month; budget_usd := v_state.monthly_usd;
    recheck_in_s := greatest(1, ceil(extract(epoch from least(v_state.month_ends_at - mdame.engine_now(), v_recheck)))::integer);
  else
    fits := true; period := null; spent_usd := v_state.spent_today; budget_usd := v_state.daily_usd;
    recheck_in_s := null;
    return next;
    return;
  end if;
  perform mdame.alert_on_spend_budget(p_dimension_id, period);
  return next;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.defer_stage_task_for_budget(p_msg_id bigint, p_holder text, p_delay_s integer, p_reason text)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_msg record;
  v_unit_id uuid;
  v_unit mdame.work_units;
begin
  if p_delay_s is null or p_delay_s < 1 or p_delay_s > 32 * 86400 then
    raise exception 'a budget deferral lasts 1 s to 32 days, not %', p_delay_s using errcode = '22023';
  end if;
  select q.msg_id, q.read_ct, q.message into v_msg from pgmq.q_stage_tasks q where q.msg_id = p_msg_id;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  v_unit_id := (v_msg.message->>'unit_id')::uuid;
  if v_unit_id is not null then
    select * into v_unit from mdame.work_units where id = v_unit_id for update;
  end if;
  select q.msg_id, q.read_ct, q.message into v_msg from pgmq.q_stage_tasks q where q.msg_id = p_msg_id for update;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  if not mdame.holds_stage_claim(p_holder, p_msg_id, v_msg.read_ct)
     or (v_unit.id is not null and v_unit.lease_holder is distinct from p_holder) then
    return 'stale';
  end if;
  update pgmq.q_stage_tasks
     set vt = clock_timestamp() + make_interval(secs => p_delay_s), read_ct = greatest(read_ct - 1, 0)
   where msg_id = p_msg_id;
  if v_unit.id is not null then
    update mdame.work_units
       set lease_holder = null, lease_expires_at = null,
           stage_deadline = now() + make_interval(secs => p_delay_s + (mdame.unit_stage_policy(v_unit.stage)).deadline_s),
           updated_at = now()
     where id = v_unit.id;
  end if;
  perform mdame.log_event((v_msg.message->>'run_id')::uuid, v_unit_id, v_msg.message->>'stage', 'budget_deferred',
                          jsonb_build_object('delay_s', p_delay_s, 'reason', left(p_reason, 500)));
  return 'deferred';
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.get_spend(p_dimension_id text DEFAULT NULL::text, p_month date DEFAULT NULL::date)
 RETURNS TABLE(dimension_id text, provider text, model text, kind text, calls bigint, cached_calls bigint, quantity numeric, usd numeric)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  with bounds as (
    select (date_trunc('month', coalesce(p_month::timestamp, mdame.engine_now() at time zone 'UTC'))) at time zone 'UTC' as starts
  )
  select u.dimension_id, u.provider, u.model, u.kind,
         count(distinct u.call_key), count(distinct u.call_key) filter (where u.cached), sum(u.quantity), sum(u.usd)
    from mdame.provider_usage u, bounds b
   where u.recorded_at >= b.starts and u.recorded_at < b.starts + interval '1 month'
     and (p_dimension_id is null or u.dimension_id = p_dimension_id)
   group by u.dimension_id, u.provider, u.model, u.kind
   order by u.dimension_id nulls last, u.provider, u.model, u.kind;
$function$
;

CREATE OR REPLACE FUNCTION mdame.list_provider_prices()
 RETURNS SETOF mdame.provider_prices
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select * from mdame.provider_prices order by provider, model, kind;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_provider_usage(p_call_key text, p_provider text, p_model text, p_quantities jsonb, p_cached boolean, p_dimension_id text, p_run_id uuid DEFAULT NULL::uuid, p_unit_id uuid DEFAULT NULL::uuid, p_stage text DEFAULT NULL::text)
 RETURNS numeric
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_kind text;
  v_quantity jsonb;
  v_price numeric;
  v_total numeric := 0;
  v_inserted integer;
  v_new integer := 0;
begin
  if p_quantities is null or jsonb_typeof(p_quantities) <> 'object' or p_quantities = '{}'::jsonb then
    raise exception 'a recorded call names at least one unit kind and its quantity' using errcode = '22023';
  end if;
  if p_cached is null then
    raise exception 'a recorded call is cached or not' using errcode = '22023';
  end if;
  for v_kind, v_quantity in select key, value from jsonb_each(p_quantities) loop
    if jsonb_typeof(v_quantity) <> 'number' or v_quantity::numeric < 0 then
      raise exception 'the quantity of % must be a number of at least 0', left(v_kind, 40) using errcode = '22023';
    end if;
    v_price := mdame.spend_price(p_provider, p_model, v_kind);
    insert into mdame.provider_usage (call_key, provider, model, kind, quantity, usd_per_unit, usd, cached,
                                      dimension_id, run_id, unit_id, stage, recorded_at)
    values (p_call_key, p_provider, p_model, v_kind, v_quantity::numeric, v_price,
            case when p_cached then 0 else coalesce(v_price, 0) * v_quantity::numeric end, p_cached,
            p_dimension_id, p_run_id, p_unit_id, p_stage, mdame.engine_now())
    on conflict (call_key, kind) do nothing;
    get diagnostics v_inserted = row_count;
    v_new := v_new + v_inserted;
  end loop;
  select coalesce(sum(u.usd), 0) into v_total from mdame.provider_usage u where u.call_key = p_call_key;
  if v_new > 0 and not p_cached and p_dimension_id is not null then
    perform mdame.alert_on_spend_budget(p_dimension_id);
  end if;
  return v_total;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.reset_provider_price(p_provider text, p_model text, p_kind text)
 RETURNS mdame.provider_prices
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_row mdame.provider_prices;
begin
  select * into v_row from mdame.provider_prices
   where provider = p_provider and model = p_model and kind = p_kind for update;
  if not found then
    raise exception 'no price for % % %', left(p_provider, 60), left(p_model, 120), left(p_kind, 40) using errcode = 'MDN01';
  end if;
  if v_row.default_usd_per_unit is null then
    delete from mdame.provider_prices where provider = p_provider and model = p_model and kind = p_kind;
    return null;
  end if;
  update mdame.provider_prices
     set usd_per_unit = default_usd_per_unit, source = 'default', updated_at = now()
   where provider = p_provider and model = p_model and kind = p_kind
  returning * into v_row;
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.set_provider_price(p_provider text, p_model text, p_kind text, p_usd_per_unit numeric)
 RETURNS mdame.provider_prices
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_row mdame.provider_prices;
begin
  if p_usd_per_unit is null then
    raise exception 'a price is a number of USD per unit' using errcode = '22023';
  end if;
  insert into mdame.provider_prices as p (provider, model, kind, usd_per_unit, source, updated_at)
  values (p_provider, p_model, p_kind, p_usd_per_unit, 'operator', now())
  on conflict (provider, model, kind) do update
     set usd_per_unit = excluded.usd_per_unit, source = 'operator', updated_at = now()
  returning * into v_row;
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.spend_budget_state(p_dimension_id text, OUT daily_usd numeric, OUT monthly_usd numeric, OUT spent_today numeric, OUT spent_month numeric, OUT day_ends_at timestamp with time zone, OUT month_ends_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
declare
  v_now timestamp with time zone := mdame.engine_now();
  v_day timestamp with time zone := date_trunc('day', v_now, 'UTC');
  v_month timestamp with time zone := date_trunc('month', v_now, 'UTC');
  v_budget jsonb;
begin
  select d.budget into v_budget from mdame.dimensions d where d.id = p_dimension_id;
  daily_usd := (v_budget->>'daily_usd')::numeric;
  monthly_usd := (v_budget->>'monthly_usd')::numeric;
  day_ends_at := v_day + interval '1 day';
  month_ends_at := (date_trunc('month', v_now at time zone 'UTC') + interval '1 month') at time zone 'UTC';
  select coalesce(sum(u.usd) filter (where u.recorded_at >= v_day), 0), coalesce(sum(u.usd), 0)
    into spent_today, spent_month
    from mdame.provider_usage u
   where u.dimension_id = p_dimension_id and u.recorded_at >= v_month;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.spend_price(p_provider text, p_model text, p_kind text)
 RETURNS numeric
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select p.usd_per_unit from mdame.provider_prices p
   where p.provider = p_provider and p.kind = p_kind and p.model in (p_model, '*')
   order by (p.model = '*') limit 1;
$function$
;

CREATE OR REPLACE FUNCTION mdame.weekly_report(p_dimension_id text, p_week_start date)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_dimension mdame.dimensions;
  v_zone text;
  v_week date := date_trunc('week', p_week_start)::date;
  v_from timestamptz;
  v_to timestamptz;
  v_outcomes jsonb;
  v_daily jsonb;
  v_latency jsonb;
  v_cache jsonb;
  v_quota jsonb;
  v_videos jsonb;
  v_topics jsonb;
  v_spend jsonb;
begin
  if p_week_start is null then
    raise exception 'a week start date is required' using errcode = '22023';
  end if;
  select * into v_dimension from mdame.dimensions where id = p_dimension_id;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  v_zone := coalesce(nullif(v_dimension.publishing->>'time_zone', ''), 'UTC');
  v_from := v_week::timestamp at time zone v_zone;
  v_to := (v_week + 7)::timestamp at time zone v_zone;

  -- Each unit's stage changes (the stage it left, when it left the one it entered), for the units of
  -- the dimension that changed stage within the week or the 30 days before it.
  with units as (
    select distinct e.unit_id
      from mdame.events e join mdame.work_units u on u.id = e.unit_id
     where e.kind = 'stage_entered' and u.dimension_id = p_dimension_id
       and e.created_at >= v_from - interval '30 days' and e.created_at < v_to
  ), transitions as (
    select e.unit_id, e.stage,
           lag(e.stage) over (partition by e.unit_id order by e.id) as previous,
           e.detail->>'error' as error, e.created_at as at,
           lead(e.created_at) over (partition by e.unit_id order by e.id) as left_at
      from mdame.events e
     where e.kind = 'stage_entered' and e.unit_id in (select unit_id from units)
  ), ends as (
    select t.*, (t.at at time zone v_zone)::date as day from transitions t
     where t.stage in ('published', 'rejected', 'failed') and t.at >= v_from and t.at < v_to
  )
  select jsonb_build_object(
           'published', (select count(*) from ends where stage = 'published'),
           'rejected', (select count(*) from ends where stage = 'rejected'),
           'failed', (select count(*) from ends where stage = 'failed'),
           'rejected_by_reason', coalesce((
             select jsonb_agg(jsonb_build_object('reason', r.reason, 'count', r.n) order by r.n desc, r.reason)
               from (select left(btrim(split_part(coalesce(x.error, 'no reason recorded'), ':', 1)), 120) as reason, count(*) as n
                       from ends x where x.stage = 'rejected' group by 1) r), '[]'::jsonb),
           'failed_by_stage', coalesce((
             select jsonb_agg(jsonb_build_object('stage', f.stage, 'count', f.n) order by f.n desc, f.stage)
               from (select coalesce(x.previous, 'unknown') as stage, count(*) as n
                       from ends x where x.stage = 'failed' group by 1) f), '[]'::jsonb)),
         (select jsonb_agg(jsonb_build_object(
                   'date', d.day,
                   'published', (select count(*) from ends x where x.stage = 'published' and x.day = d.day),
                   'rejected', (select count(*) from ends x where x.stage = 'rejected' and x.day = d.day),
                   'failed', (select count(*) from ends x where x.stage = 'failed' and x.day = d.day))
                 order by d.day)
            from (select (v_week + i) as day from generate_series(0, 6) i) d),
         (select coalesce(jsonb_agg(jsonb_build_object('stage', l.stage, 'samples', l.n, 'p50_s', l.p50, 'p95_s', l.p95)
                                    order by array_position(array['script', 'safety', 'plan', 'media', 'render', 'publish', 'deferred'], l.stage), l.stage), '[]'::jsonb)
            from (select x.stage, count(*) as n,
                         round(percentile_cont(0.5) within group (order by extract(epoch from x.left_at - x.at))::numeric, 1) as p50,
                         round(percentile_cont(0.95) within group (order by extract(epoch from x.left_at - x.at))::numeric, 1) as p95
                    from transitions x
                   where x.left_at is not null and x.left_at >= v_from and x.left_at < v_to
                     and x.stage not in ('published', 'rejected', 'failed')
                   group by x.stage) l)
    into v_outcomes, v_daily, v_latency;

  select jsonb_build_object(
           'scenes', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where s.cache_hit),
                                                'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where s.cache_hit)::numeric / count(*), 4) end)
                        from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                       where u.dimension_id = p_dimension_id and s.cache_hit is not null
                         and s.updated_at >= v_from and s.updated_at < v_to),
           'llm', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where (e.detail->>'hit')::boolean),
                                             'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where (e.detail->>'hit')::boolean)::numeric / count(*), 4) end)
                     from mdame.events e
                    where e.kind = 'cache_lookup' and e.detail->>'cache' = 'llm' and e.detail->>'dimension_id' = p_dimension_id
                      and e.created_at >= v_from and e.created_at < v_to),
           'tts', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where (e.detail->>'hit')::boolean),
                                             'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where (e.detail->>'hit')::boolean)::numeric / count(*), 4) end)
                     from mdame.events e
                    where e.kind = 'cache_lookup' and e.detail->>'cache' = 'tts' and e.detail->>'dimension_id' = p_dimension_id
                      and e.created_at >= v_from and e.created_at < v_to))
    into v_cache;

  select jsonb_build_object(
           'youtube', coalesce((
             select jsonb_agg(jsonb_build_object('bucket', q.bucket, 'used', q.used, 'calls', q.calls) order by q.bucket)
               from (select l.bucket, sum(l.cost) as used, count(*) as calls
                       from mdame.quota_ledger l join mdame.dimension_accounts a on a.id = l.account_id
                      where a.dimension_id = p_dimension_id and l.entry = 'call' and l.status <> 'released'
                        and l.created_at >= v_from and l.created_at < v_to
                      group by l.bucket) q), '[]'::jsonb),
           'tiktok', coalesce((
             select jsonb_agg(jsonb_build_object('call_kind', c.call_kind, 'calls', c.calls) order by c.call_kind)
               from (select t.call_kind, count(*) as calls
                       from mdame.tiktok_calls t join mdame.dimension_accounts a on a.id = t.account_id
                      where a.dimension_id = p_dimension_id and t.created_at >= v_from and t.created_at < v_to
                      group by t.call_kind) c), '[]'::jsonb))
    into v_quota;

  select coalesce(jsonb_agg(jsonb_build_object('reason', r.reason, 'count', r.n) order by r.n desc, r.reason), '[]'::jsonb)
    into v_topics
    from (select t.reason, count(*) as n from mdame.rejected_topics t
           where t.dimension_id = p_dimension_id and t.created_at >= v_from and t.created_at < v_to
           group by t.reason) r;

  with latest as (
    select distinct on (va.publication_id) va.*, p.external_id, a.channel_handle, u.script->>'title' as title
      from mdame.video_analytics va
      join mdame.publications p on p.id = va.publication_id
      join mdame.work_units u on u.id = p.unit_id
      join mdame.dimension_accounts a on a.id = p.account_id
     where u.dimension_id = p_dimension_id and va.fetched_at < v_to
     order by va.publication_id, va.window_days desc, va.fetched_at desc
  ), week as (
    select jsonb_build_object(
             'publication_id', l.publication_id,
             'platform', l.platform,
             'title', coalesce(l.title, '(untitled)'),
             -- An Instagram Reel's link needs its shortcode, which the engine does not record: none.
             'url', case when l.external_id is null then null
                         when l.platform = 'youtube' then 'https://www.youtube.com/shorts/' || l.external_id
                         when l.platform = 'tiktok' then 'https://www.tiktok.com/@' || ltrim(l.channel_handle, '@') || '/video/' || l.external_id
                         when l.platform = 'facebook' then 'https://www.facebook.com/reel/' || l.external_id end,
             'window_days', l.window_days,
             'views', l.views,
             'engaged_views', l.engaged_views,
             'average_view_duration_s', l.average_view_duration_s,
             'average_view_percentage', l.average_view_percentage,
             'likes', l.likes,
             'comments', l.comments,
             'shares', l.shares) as video,
           l.platform, l.engaged_views, l.views, l.likes, l.comments, l.shares, l.average_view_percentage, l.publication_id
      from latest l
     where l.fetched_at >= v_from
  )
  select jsonb_build_object(
           'count', (select count(*) from week),
           'best_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views desc, w.views desc, w.publication_id limit 1),
           'worst_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views, w.views, w.publication_id limit 1),
           'best_retention', (select w.video from week w where w.average_view_percentage is not null
                               order by w.average_view_percentage desc, w.views desc, w.publication_id limit 1),
           'worst_retention', (select w.video from week w where w.average_view_percentage is not null
                                order by w.average_view_percentage, w.views, w.publication_id limit 1),
           'by_platform', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'platform', g.platform, 'videos', g.n, 'views', g.views, 'likes', g.likes,
                      'engaged_views', g.engaged_views, 'average_view_percentage', g.mean_view_percentage,
                      'comments', g.comments, 'shares', g.shares,
                      'most_viewed', (select w.video from week w where w.platform = g.platform order by w.views desc, w.publication_id limit 1),
                      'least_viewed', (select w.video from week w where w.platform = g.platform order by w.views, w.publication_id limit 1))
                    order by g.platform)
               from (select w.platform, count(*) as n, sum(w.views) as views, sum(w.likes) as likes,
                            sum(w.engaged_views) as engaged_views, round(avg(w.average_view_percentage), 2) as mean_view_percentage,
                            sum(w.comments) as comments, sum(w.shares) as shares
                       from week w group by w.platform) g), '[]'::jsonb))
    into v_videos;

  select jsonb_build_object(
           'usd', coalesce(round(sum(g.usd), 6), 0),
           'usd_per_published_video', case when (v_outcomes->>'published')::integer = 0 then null
                                           else round(coalesce(sum(g.usd), 0) / (v_outcomes->>'published')::integer, 6) end,
           'by_provider', coalesce(jsonb_agg(jsonb_build_object('provider', g.provider, 'usd', round(g.usd, 6), 'calls', g.calls,
                                                                'cached_calls', g.cached_calls) order by g.usd desc, g.provider)
                                   filter (where g.provider is not null), '[]'::jsonb))
    into v_spend
    from (select u.provider, sum(u.usd) as usd, count(distinct u.call_key) as calls,
                 count(distinct u.call_key) filter (where u.cached) as cached_calls
            from mdame.provider_usage u
           where u.dimension_id = p_dimension_id and u.recorded_at >= v_from and u.recorded_at < v_to
           group by u.provider) g;

  return jsonb_build_object(
    'dimension_id', v_dimension.id,
    'display_name', v_dimension.display_name,
    'time_zone', v_zone,
    'week_start', v_week,
    'week_end', v_week + 6,
    'generated_at', mdame.engine_now(),
    'outcomes', v_outcomes,
    'topics_rejected', v_topics,
    'daily', v_daily,
    'stage_latency', v_latency,
    'cache', v_cache,
    'quota', v_quota,
    'spend', v_spend,
    'videos', v_videos);
end;
$function$
;

comment on function mdame.alert_on_spend_budget(text,text) is 'internal: the 80 % and cap alerts of record_provider_usage and check_spend_budget';
comment on function mdame.spend_budget_state(text) is 'internal: a dimension''s spend against its caps, for check_spend_budget and record_provider_usage';
comment on function mdame.spend_price(text,text,text) is 'internal: the price lookup of record_provider_usage and check_spend_budget';

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_gpu_worker", "rpcs": ["assert_environment", "claim_scene_generation", "extend_worker_job", "read_worker_jobs", "record_scene_asset", "record_worker_heartbeat", "record_worker_stop", "release_scene_claim"], "component": "gpu-worker"}'::jsonb;
update mdame.component_roles set rpcs = rpcs || array['check_spend_budget', 'defer_stage_task_for_budget', 'get_spend', 'list_provider_prices', 'record_provider_usage', 'reset_provider_price', 'set_provider_price']::text[] where role = 'mdame_engine';
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_gpu_worker", "rpcs": ["assert_environment", "check_spend_budget", "claim_scene_generation", "extend_worker_job", "read_worker_jobs", "record_provider_usage", "record_scene_asset", "record_worker_heartbeat", "record_worker_stop", "release_scene_claim"], "component": "gpu-worker"}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "audio_seconds", "model": "*", "source": "default", "provider": "gemini-tts", "usd_per_unit": 0.00025, "default_usd_per_unit": 0.00025}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "characters", "model": "*", "source": "default", "provider": "edge-tts", "usd_per_unit": 0, "default_usd_per_unit": 0}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "characters", "model": "*", "source": "default", "provider": "gemini-tts", "usd_per_unit": 0.00000012, "default_usd_per_unit": 0.00000012}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "gpu_seconds", "model": "*", "source": "default", "provider": "comfyui", "usd_per_unit": 0.0003, "default_usd_per_unit": 0.0003}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "images", "model": "*", "source": "default", "provider": "gemini-image", "usd_per_unit": 0.039, "default_usd_per_unit": 0.039}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "input_tokens", "model": "*", "source": "default", "provider": "gemini", "usd_per_unit": 0.0000003, "default_usd_per_unit": 0.0000003}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "input_tokens", "model": "*", "source": "default", "provider": "openai-compat", "usd_per_unit": 0.00000015, "default_usd_per_unit": 0.00000015}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "input_tokens", "model": "gemini-2.5-flash-lite", "source": "default", "provider": "gemini", "usd_per_unit": 0.0000001, "default_usd_per_unit": 0.0000001}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "input_tokens", "model": "gemini-2.5-pro", "source": "default", "provider": "gemini", "usd_per_unit": 0.00000125, "default_usd_per_unit": 0.00000125}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "output_tokens", "model": "*", "source": "default", "provider": "gemini", "usd_per_unit": 0.0000025, "default_usd_per_unit": 0.0000025}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "output_tokens", "model": "*", "source": "default", "provider": "openai-compat", "usd_per_unit": 0.0000006, "default_usd_per_unit": 0.0000006}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "output_tokens", "model": "gemini-2.5-flash-lite", "source": "default", "provider": "gemini", "usd_per_unit": 0.0000004, "default_usd_per_unit": 0.0000004}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "output_tokens", "model": "gemini-2.5-pro", "source": "default", "provider": "gemini", "usd_per_unit": 0.00001, "default_usd_per_unit": 0.00001}'::jsonb);
insert into mdame.provider_prices ("kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit") select "kind", "model", "source", "provider", "usd_per_unit", "default_usd_per_unit" from jsonb_populate_record(null::mdame.provider_prices, '{"kind": "requests", "model": "*", "source": "default", "provider": "pexels", "usd_per_unit": 0, "default_usd_per_unit": 0}'::jsonb);

select mdame.restrict_function_privileges();
