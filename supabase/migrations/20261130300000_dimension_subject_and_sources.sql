-- A dimension says what it is about (subject) and where its topics come from (sources, each with a
-- weight); topics scoring under its min_score are dropped. The shapes are checked in full by the
-- Zod contract (shared/contracts/sources.ts); the table keeps the coarse checks so a hand-written
-- row cannot break the ingest stage. Defaults keep every existing dimension as it was: no subject
-- (every topic matches), the Google Trends feed of its trend_geo, no threshold.

alter table mdame.dimensions
  add column subject jsonb not null default '{"keywords": [], "categories": [], "excluded_terms": []}'::jsonb,
  add column sources jsonb not null default '[{"kind": "google_trends", "weight": 1}]'::jsonb,
  add column min_score double precision not null default 0,
  add constraint dimensions_subject_is_object check (jsonb_typeof(subject) = 'object'),
  add constraint dimensions_sources_listed check (jsonb_typeof(sources) = 'array' and jsonb_array_length(sources) between 1 and 10),
  add constraint dimensions_min_score_range check (min_score between 0 and 1);

-- Topics the ingest stage dropped before they became work units, with why and, where scored, the
-- score and its components: an operator can see what a threshold or a subject keeps out. Safety
-- rejections stay in safety_audit_logs.
create table mdame.rejected_topics (
  id bigint generated always as identity primary key,
  run_id uuid not null references mdame.pipeline_runs (id),
  dimension_id text not null references mdame.dimensions (id),
  title text not null,
  source text,
  url text,
  reason text not null check (reason in ('below_min_score', 'off_subject', 'excluded_term', 'near_duplicate')),
  score double precision,
  components jsonb not null default '{}'::jsonb,
  detail jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index rejected_topics_run_idx on mdame.rejected_topics (run_id, dimension_id);
alter table mdame.rejected_topics enable row level security;
grant select, insert, update, delete on mdame.rejected_topics to service_role;

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
  insert into mdame.dimensions (id, display_name, language, tts_voice, tts_rate, trend_geo, style, safety_profile,
                                daily_limit, narration_min_words, narration_max_words, subject, sources, min_score)
  values (p_config->>'id', p_config->>'display_name', p_config->>'language', p_config->>'tts_voice',
          coalesce(p_config->>'tts_rate', '+0%'), p_config->>'trend_geo', p_config->'style',
          coalesce(p_config->'safety_profile', '{"blocked_terms": []}'::jsonb),
          coalesce((p_config->>'daily_limit')::integer, 1),
          coalesce((p_config->>'narration_min_words')::integer, 95),
          coalesce((p_config->>'narration_max_words')::integer, 150),
          coalesce(p_config->'subject', '{"keywords": [], "categories": [], "excluded_terms": []}'::jsonb),
          coalesce(p_config->'sources', '[{"kind": "google_trends", "weight": 1}]'::jsonb),
          coalesce((p_config->>'min_score')::double precision, 0))
  on conflict (id) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'dimension % already exists (change it with `mdame dimension set`)', p_config->>'id' using errcode = 'MDS01';
  end if;
  return v_row;
end;
$$;

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
    tts_rate = coalesce(p_config->>'tts_rate', d.tts_rate),
    trend_geo = coalesce(p_config->>'trend_geo', d.trend_geo),
    style = coalesce(p_config->'style', d.style),
    safety_profile = coalesce(p_config->'safety_profile', d.safety_profile),
    daily_limit = coalesce((p_config->>'daily_limit')::integer, d.daily_limit),
    narration_min_words = coalesce((p_config->>'narration_min_words')::integer, d.narration_min_words),
    narration_max_words = coalesce((p_config->>'narration_max_words')::integer, d.narration_max_words),
    subject = coalesce(p_config->'subject', d.subject),
    sources = coalesce(p_config->'sources', d.sources),
    min_score = coalesce((p_config->>'min_score')::double precision, d.min_score)
   where d.id = p_id
  returning * into v_row;
  -- updated_at moves only when something did, so a repeated `set` reads as no change.
  if (to_jsonb(v_row) - 'updated_at') is distinct from (to_jsonb(v_old) - 'updated_at') then
    update mdame.dimensions set updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;

-- As before (volume gate, cross-day fingerprint de-duplication through the unique index, safety
-- rejections audited), and the topics the ingest stage dropped for their score, subject or as
-- near-duplicates are written to rejected_topics: an entry of p_rejected with a `reason` is such a
-- topic, any other a safety rejection.
create or replace function mdame.record_topics(p_msg_id bigint, p_run_id uuid, p_dimension_id text, p_step_token text, p_topics jsonb, p_rejected jsonb)
returns mdame.run_dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_rd mdame.run_dimensions;
  v_run mdame.pipeline_runs;
  v_limit integer;
  v_used integer;
  v_topic jsonb;
  v_rejected jsonb;
  v_unit_id uuid;
  v_created integer := 0;
  v_dropped integer := 0;
begin
  select * into v_rd from mdame.run_dimensions where run_id = p_run_id and dimension_id = p_dimension_id for update;
  if not found then
    raise exception 'run % has no dimension %', p_run_id, p_dimension_id using errcode = 'MDN01';
  end if;
  if v_rd.status <> 'ingesting' then
    perform pgmq.archive('stage_tasks', p_msg_id);
    return v_rd;
  end if;
  select * into v_run from mdame.pipeline_runs where id = p_run_id;

  -- Volume gate: at most daily_limit units per dimension per run date, across all runs of that day.
  select daily_limit into v_limit from mdame.dimensions where id = p_dimension_id;
  select count(*) into v_used
    from mdame.work_units u join mdame.pipeline_runs r on r.id = u.run_id
   where u.dimension_id = p_dimension_id and r.run_date = v_run.run_date;

  for v_topic in select value from jsonb_array_elements(p_topics) loop
    exit when v_used + v_created >= v_limit;
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (p_run_id, p_dimension_id, v_topic->>'unit_key', v_topic->>'fingerprint', v_topic - 'unit_key' - 'fingerprint')
    on conflict do nothing
    returning id into v_unit_id;
    if v_unit_id is not null then
      v_created := v_created + 1;
      perform mdame.set_unit_stage(v_unit_id, 'script');
      perform mdame.enqueue_stage_task('script', p_run_id, v_unit_id);
      v_unit_id := null;
    end if;
  end loop;

  for v_rejected in select value from jsonb_array_elements(coalesce(p_rejected, '[]'::jsonb)) loop
    if v_rejected ? 'reason' then
      insert into mdame.rejected_topics (run_id, dimension_id, title, source, url, reason, score, components, detail)
      values (p_run_id, p_dimension_id, left(coalesce(v_rejected->>'title', ''), 300), v_rejected->>'source', v_rejected->>'url',
              v_rejected->>'reason', (v_rejected->>'score')::double precision,
              coalesce(v_rejected->'components', '{}'::jsonb), coalesce(v_rejected->'detail', '{}'::jsonb));
      v_dropped := v_dropped + 1;
    else
      insert into mdame.safety_audit_logs (run_id, dimension_id, subject, subject_text, verdict, reasons, classifier)
      values (p_run_id, p_dimension_id, 'topic', v_rejected->>'title', 'rejected', coalesce(v_rejected->'reasons', '[]'::jsonb),
              coalesce(v_rejected->>'classifier', 'unknown'));
    end if;
  end loop;

  update mdame.run_dimensions
     set status = 'ingested', topics_seen = jsonb_array_length(p_topics) + jsonb_array_length(coalesce(p_rejected, '[]'::jsonb)),
         units_created = v_created, updated_at = now()
   where run_id = p_run_id and dimension_id = p_dimension_id
  returning * into v_rd;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('units_created', v_created));
  perform mdame.log_event(p_run_id, null, 'ingest', 'topics_recorded',
    jsonb_build_object('dimension', p_dimension_id, 'created', v_created, 'candidates', jsonb_array_length(p_topics), 'dropped', v_dropped));
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(p_run_id);
  return v_rd;
end;
$$;

select mdame.restrict_function_privileges();
