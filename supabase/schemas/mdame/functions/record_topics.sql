create or replace function mdame.record_topics(p_msg_id bigint, p_run_id uuid, p_dimension_id text, p_step_token text, p_topics jsonb, p_rejected jsonb)
returns mdame.run_dimensions
language plpgsql
security definer
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

  -- Volume gate: at most daily_limit units per dimension per run date and configuration, across
  -- all runs of that day (a changed configuration gets its own allowance; docs/reference/run-keys.md).
  v_limit := coalesce((v_rd.config->>'daily_limit')::integer, (select daily_limit from mdame.dimensions where id = p_dimension_id));
  select count(*) into v_used
    from mdame.work_units u
    join mdame.pipeline_runs r on r.id = u.run_id
    join mdame.run_dimensions rd on rd.run_id = u.run_id and rd.dimension_id = u.dimension_id
   where u.dimension_id = p_dimension_id and r.run_date = v_run.run_date and rd.config_hash is not distinct from v_rd.config_hash;

  for v_topic in select value from jsonb_array_elements(p_topics) loop
    v_unit_id := null;
    if v_used + v_created < v_limit then
      insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
      values (p_run_id, p_dimension_id, v_topic->>'unit_key', v_topic->>'fingerprint', v_topic - 'unit_key' - 'fingerprint' - 'safety')
      on conflict do nothing
      returning id into v_unit_id;
      if v_unit_id is not null then
        v_created := v_created + 1;
        perform mdame.set_unit_stage(v_unit_id, 'script');
        perform mdame.enqueue_stage_task('script', p_run_id, v_unit_id);
      end if;
    end if;
    if jsonb_typeof(v_topic->'safety') = 'object' then
      perform mdame.insert_safety_audit(p_run_id, v_unit_id, p_dimension_id, 'topic', v_topic->>'title', v_topic->'safety');
    end if;
  end loop;

  for v_rejected in select value from jsonb_array_elements(coalesce(p_rejected, '[]'::jsonb)) loop
    if v_rejected->>'reason' in ('below_min_score', 'off_subject', 'excluded_term', 'near_duplicate') then
      insert into mdame.rejected_topics (run_id, dimension_id, title, source, url, reason, score, components, detail)
      values (p_run_id, p_dimension_id, left(coalesce(v_rejected->>'title', ''), 300), v_rejected->>'source', v_rejected->>'url',
              v_rejected->>'reason', (v_rejected->>'score')::double precision,
              coalesce(v_rejected->'components', '{}'::jsonb), coalesce(v_rejected->'detail', '{}'::jsonb));
      v_dropped := v_dropped + 1;
    else
      perform mdame.insert_safety_audit(p_run_id, null, p_dimension_id, 'topic', v_rejected->>'title',
        v_rejected || jsonb_build_object('allowed', false));
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
