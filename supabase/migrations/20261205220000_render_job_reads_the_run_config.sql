-- render job reads the run config: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.render_job(p_unit_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
    select case when count(distinct a.platform) = 1
                then case min(a.platform) when 'youtube' then 'youtube_shorts' when 'tiktok' then 'tiktok' end end
      into v_profile
      from mdame.dimension_accounts a where a.dimension_id = v_unit.dimension_id and a.active;
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
$function$
;

select mdame.restrict_function_privileges();
