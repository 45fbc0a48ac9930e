-- The render job of a unit, built from its stored voice and scenes; the same state always gives the
-- same message (and so the same step token). The captions' safe-zone profile is the dimension's,
-- or, for `platforms`, the one of the platforms its active accounts are all on (youtube_shorts,
-- tiktok, reels for Instagram and Facebook), else intersection, which keeps clear of every
-- platform's overlay. Captions, font and
-- music come from the configuration the unit's run started with (run_dimensions.config), so a change
-- during the day leaves the units under way, and a recovered job's step token, as they were.

create or replace function mdame.render_job(p_unit_id uuid)
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_config jsonb;
  v_job jsonb;
  v_profile text;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id;
  v_config := coalesce((select rd.config from mdame.run_dimensions rd where rd.run_id = v_unit.run_id and rd.dimension_id = v_unit.dimension_id),
                       (select mdame.dimension_config(d) from mdame.dimensions d where d.id = v_unit.dimension_id));
  v_profile := coalesce(v_config->'captions'->>'profile', 'platforms');
  if v_profile = 'platforms' then
    select case when count(distinct p.profile) = 1 then min(p.profile) end
      into v_profile
      from (select case a.platform when 'youtube' then 'youtube_shorts' when 'tiktok' then 'tiktok'
                                   when 'instagram' then 'reels' when 'facebook' then 'reels' end as profile
              from mdame.dimension_accounts a where a.dimension_id = v_unit.dimension_id and a.active) p;
    v_profile := coalesce(v_profile, 'intersection');
  end if;
  v_job := jsonb_build_object(
    'run_id', v_unit.run_id, 'unit_id', v_unit.id, 'dimension_id', v_unit.dimension_id,
    'title', v_unit.script->>'title',
    'audio_key', v_unit.voice->>'audio_key', 'audio_duration_ms', (v_unit.voice->>'duration_ms')::integer,
    'words', v_unit.voice->'words',
    'scenes', (select jsonb_agg(jsonb_build_object('index', s.scene_index, 'asset_key', s.asset_key, 'first_word', s.first_word) order by s.scene_index)
                 from mdame.scenes s where s.unit_id = p_unit_id),
    'caption_font', coalesce(v_config->'style'->>'caption_font', 'DejaVu Sans'),
    'caption_profile', v_profile);
  -- Only a job with a bed names one, so voice-only jobs keep the step token they had.
  if coalesce(jsonb_typeof(v_config->'music'), 'null') <> 'null' then
    v_job := v_job || jsonb_build_object('music', v_config->'music');
  end if;
  return v_job || jsonb_build_object('step_token', mdame.step_token(v_unit.id::text, mdame.stage_index('render'), v_job));
end;
$$;
