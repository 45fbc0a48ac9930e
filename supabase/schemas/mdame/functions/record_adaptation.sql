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
