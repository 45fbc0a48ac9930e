-- Run and per-unit status, as the status endpoint shows it.

create or replace function mdame.get_run_status(p_run_id uuid)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select jsonb_build_object(
    'run', to_jsonb(r) - 'idempotency_key',
    'dimensions', coalesce((select jsonb_agg(to_jsonb(rd) - 'run_id' order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = r.id), '[]'::jsonb),
    'units', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', u.id, 'dimension_id', u.dimension_id, 'stage', u.stage, 'title', coalesce(u.script->>'title', u.topic->>'title'),
        'error', u.error, 'updated_at', u.updated_at,
        'scenes_ready', (select count(*) from mdame.scenes s where s.unit_id = u.id and s.status = 'ready'),
        'scenes_total', (select count(*) from mdame.scenes s where s.unit_id = u.id),
        'video', u.video,
        'quality', u.quality,
        'publications', coalesce((select jsonb_agg(jsonb_build_object('platform', p.platform, 'status', p.status, 'external_id', p.external_id,
                                      'deferred_reason', p.deferred_reason, 'not_before', p.not_before, 'privacy_status', p.privacy_status,
                                      'skip_reason', p.skip_reason))
                                    from mdame.publications p where p.unit_id = u.id), '[]'::jsonb)
      ) order by u.dimension_id, u.created_at)
      from mdame.work_units u where u.run_id = r.id), '[]'::jsonb))
  from mdame.pipeline_runs r
  where r.id = p_run_id;
$$;
