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
