-- Records one lookup of a cache the engine consults before paying for a call (llm: the LLM answer
-- cache; tts: stored voice tracks) as a cache_lookup event, whether it hit or not: what the weekly
-- report's hit rates count. Scene cache hits are recorded on the scene itself (scenes.cache_hit).

create or replace function mdame.record_cache_lookup(p_cache text, p_dimension_id text, p_hit boolean,
                                                     p_run_id uuid default null::uuid, p_unit_id uuid default null::uuid,
                                                     p_stage text default null::text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_cache is null or p_cache not in ('llm', 'tts') then
    raise exception 'unknown cache %', coalesce(p_cache, 'null') using errcode = '22023';
  end if;
  if p_hit is null then
    raise exception 'a cache lookup is a hit or a miss' using errcode = '22023';
  end if;
  perform mdame.log_event(p_run_id, p_unit_id, p_stage, 'cache_lookup',
                          jsonb_build_object('cache', p_cache, 'dimension_id', p_dimension_id, 'hit', p_hit));
end;
$$;
