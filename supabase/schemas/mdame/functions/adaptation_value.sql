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
