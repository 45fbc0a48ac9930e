-- The voice chain's fallback: Gemini TTS speaks a dimension's narration when Edge TTS cannot.
-- Its prebuilt voice is configuration of the dimension (null: the default for the dimension's
-- language, chosen by the pipeline), checked against the same list as the Zod contract
-- (shared/providers/tts/gemini-voices.ts).

alter table mdame.dimensions
  add column tts_fallback_voice text
    check (tts_fallback_voice is null or tts_fallback_voice in ('Achernar', 'Achird', 'Algenib', 'Algieba', 'Alnilam', 'Aoede', 'Autonoe', 'Callirrhoe', 'Charon', 'Despina', 'Enceladus', 'Erinome', 'Fenrir', 'Gacrux', 'Iapetus', 'Kore', 'Laomedeia', 'Leda', 'Orus', 'Puck', 'Pulcherrima', 'Rasalgethi', 'Sadachbia', 'Sadaltager', 'Schedar', 'Sulafat', 'Umbriel', 'Vindemiatrix', 'Zephyr', 'Zubenelgenubi'));

-- Creates a dimension from a validated configuration. An id already taken is a conflict, never an
-- overwrite: changing a dimension is update_dimension's job.
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
  -- The insert is the lock: a concurrent create of the same id waits on the unique index and then
  -- finds the row taken.
  insert into mdame.dimensions (id, display_name, language, tts_voice, tts_fallback_voice, tts_rate, trend_geo, style,
                                safety_profile, daily_limit, narration_min_words, narration_max_words)
  values (p_config->>'id', p_config->>'display_name', p_config->>'language', p_config->>'tts_voice',
          p_config->>'tts_fallback_voice', coalesce(p_config->>'tts_rate', '+0%'), p_config->>'trend_geo', p_config->'style',
          coalesce(p_config->'safety_profile', '{"blocked_terms": []}'::jsonb),
          coalesce((p_config->>'daily_limit')::integer, 1),
          coalesce((p_config->>'narration_min_words')::integer, 95),
          coalesce((p_config->>'narration_max_words')::integer, 150))
  on conflict (id) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'dimension % already exists (change it with `mdame dimension set`)', p_config->>'id' using errcode = 'MDS01';
  end if;
  return v_row;
end;
$$;

-- Replaces a dimension's configuration with p_config (the whole merged configuration). The id and
-- whether it is active are not part of it. A call that changes nothing leaves the row as it was.
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
  update mdame.dimensions d set
    display_name = coalesce(p_config->>'display_name', d.display_name),
    language = coalesce(p_config->>'language', d.language),
    tts_voice = coalesce(p_config->>'tts_voice', d.tts_voice),
    -- Named (even as null, back to the language's default) or left as it is.
    tts_fallback_voice = case when p_config ? 'tts_fallback_voice' then p_config->>'tts_fallback_voice' else d.tts_fallback_voice end,
    tts_rate = coalesce(p_config->>'tts_rate', d.tts_rate),
    trend_geo = coalesce(p_config->>'trend_geo', d.trend_geo),
    style = coalesce(p_config->'style', d.style),
    safety_profile = coalesce(p_config->'safety_profile', d.safety_profile),
    daily_limit = coalesce((p_config->>'daily_limit')::integer, d.daily_limit),
    narration_min_words = coalesce((p_config->>'narration_min_words')::integer, d.narration_min_words),
    narration_max_words = coalesce((p_config->>'narration_max_words')::integer, d.narration_max_words)
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
