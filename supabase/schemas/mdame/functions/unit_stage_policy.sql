-- The stage policy that bounds a unit at a stage: a unit at media waits on its visual_generation
-- jobs (the longest of its work), every other stage on the task of its own name.

create or replace function mdame.unit_stage_policy(p_stage text)
returns mdame.stage_policies
language sql
stable
set search_path = ''
as $$
  select p.* from mdame.stage_policies p where p.stage = case p_stage when 'media' then 'visual_generation' else p_stage end
$$;

comment on function mdame.unit_stage_policy(text) is 'internal: the policy of a unit''s stage, for its deadline and attempts';
