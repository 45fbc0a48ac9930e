create or replace function mdame.stage_index(p_stage text)
returns integer
language plpgsql
immutable
set search_path = ''
as $$
begin
  return case p_stage
    when 'ingest' then 0 when 'script' then 1 when 'safety' then 2 when 'plan' then 3 when 'voice' then 4
    when 'visual_generation' then 5 when 'render' then 6 when 'publish' then 7 end;
end;
$$;

comment on function mdame.stage_index(text) is 'internal: stage order';
