-- Which LLM answers which task of a dimension: per task (script, critic, safety, plan) an ordered
-- list of {provider, model}; the pipeline's router tries them in order when one is unavailable.
-- The shape is checked by its Zod contract (LlmRouting in shared/contracts/llm.ts) before it gets
-- here; the table only insists on an object whose keys are known tasks, each a non-empty array.
-- An empty object (the default) runs every task on Gemini's default model.

-- A routing is valid when each task it names has a non-empty array of routes.
create or replace function mdame.llm_routing_is_valid(p_llm jsonb)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select jsonb_typeof(p_llm) = 'object'
     and not exists (
       select 1 from jsonb_each(p_llm) e
        where e.key not in ('script', 'critic', 'safety', 'plan')
           or case when jsonb_typeof(e.value) = 'array' then jsonb_array_length(e.value) = 0 else true end)
$$;

alter table mdame.dimensions
  add column llm jsonb not null default '{}'::jsonb,
  add constraint dimensions_llm_check check (mdame.llm_routing_is_valid(llm));

-- As before, with the llm routing (absent: every task on the default).
create or replace function mdame.create_dimension(p_config jsonb)
returns mdame.dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_row mdame.dimensions;
begin
  if p_config is null or jsonb_typeof(p_config) <> 'object' or coalesce(p_config->>'id', '') = '' then
    raise exception 'a dimension configuration needs an id' using errcode = '22023';
  end if;
  if p_config ? 'llm' and not mdame.llm_routing_is_valid(p_config->'llm') then
    raise exception 'llm must map tasks (script, critic, safety, plan) to non-empty lists of providers' using errcode = '22023';
  end if;
  -- The insert is the lock: a concurrent create of the same id waits on the unique index and then
  -- finds the row taken.
  insert into mdame.dimensions (id, display_name, language, tts_voice, tts_rate, trend_geo, style, safety_profile,
                                daily_limit, narration_min_words, narration_max_words, llm)
  values (p_config->>'id', p_config->>'display_name', p_config->>'language', p_config->>'tts_voice',
          coalesce(p_config->>'tts_rate', '+0%'), p_config->>'trend_geo', p_config->'style',
          coalesce(p_config->'safety_profile', '{"blocked_terms": []}'::jsonb),
          coalesce((p_config->>'daily_limit')::integer, 1),
          coalesce((p_config->>'narration_min_words')::integer, 95),
          coalesce((p_config->>'narration_max_words')::integer, 150),
          coalesce(p_config->'llm', '{}'::jsonb))
  on conflict (id) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'dimension % already exists (change it with `mdame dimension set`)', p_config->>'id' using errcode = 'MDS01';
  end if;
  return v_row;
end;
$$;

-- As before, with the llm routing: a configuration without `llm` keeps the stored one.
create or replace function mdame.update_dimension(p_id text, p_config jsonb)
returns mdame.dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_old mdame.dimensions;
  v_row mdame.dimensions;
begin
  select * into v_old from mdame.dimensions where id = p_id for update;
  if v_old.id is null then
    raise exception 'no dimension %', p_id using errcode = 'MDN01';
  end if;
  if p_config is null or jsonb_typeof(p_config) <> 'object' then
    raise exception 'a dimension configuration is a JSON object' using errcode = '22023';
  end if;
  if p_config ? 'id' and p_config->>'id' <> p_id then
    raise exception 'a dimension''s id cannot change (% -> %)', p_id, p_config->>'id' using errcode = 'MDS01';
  end if;
  if p_config ? 'llm' and not mdame.llm_routing_is_valid(p_config->'llm') then
    raise exception 'llm must map tasks (script, critic, safety, plan) to non-empty lists of providers' using errcode = '22023';
  end if;
  update mdame.dimensions d set
    display_name = coalesce(p_config->>'display_name', d.display_name),
    language = coalesce(p_config->>'language', d.language),
    tts_voice = coalesce(p_config->>'tts_voice', d.tts_voice),
    tts_rate = coalesce(p_config->>'tts_rate', d.tts_rate),
    trend_geo = coalesce(p_config->>'trend_geo', d.trend_geo),
    style = coalesce(p_config->'style', d.style),
    safety_profile = coalesce(p_config->'safety_profile', d.safety_profile),
    daily_limit = coalesce((p_config->>'daily_limit')::integer, d.daily_limit),
    narration_min_words = coalesce((p_config->>'narration_min_words')::integer, d.narration_min_words),
    narration_max_words = coalesce((p_config->>'narration_max_words')::integer, d.narration_max_words),
    llm = coalesce(p_config->'llm', d.llm)
   where d.id = p_id
  returning * into v_row;
  -- updated_at moves only when something did, so a repeated `set` reads as no change.
  if (to_jsonb(v_row) - 'updated_at') is distinct from (to_jsonb(v_old) - 'updated_at') then
    update mdame.dimensions set updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;

select mdame.restrict_function_privileges();
