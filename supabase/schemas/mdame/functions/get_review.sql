-- One unit's review with what the operator decides on (docs/guides/review.md): the review row, the
-- unit's stage, its script (title, description, hook, narration, hashtags), its rendered video and
-- quality report, and its scenes in order. Null when the unit was never sent for review.

create or replace function mdame.get_review(p_unit_id uuid)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select jsonb_build_object(
           'unit_id', r.unit_id, 'run_id', r.run_id, 'dimension_id', r.dimension_id,
           'requested_at', r.requested_at, 'expires_at', r.expires_at, 'on_expiry', r.on_expiry,
           'decision', r.decision, 'decided_by', r.decided_by, 'decided_at', r.decided_at, 'reason', r.reason,
           'edits', r.edits, 'stage', u.stage, 'topic', u.topic->>'title',
           'script', jsonb_build_object('title', u.script->>'title', 'description', u.script->>'description',
                                        'hook', u.script->>'hook', 'narration', u.script->>'narration',
                                        'hashtags', coalesce(u.script->'hashtags', '[]'::jsonb)),
           'video', jsonb_build_object('video_key', u.video->>'video_key', 'duration_s', (u.video->>'duration_s')::numeric),
           'quality', u.quality,
           'scenes', coalesce((select jsonb_agg(jsonb_build_object('index', s.scene_index, 'prompt', s.prompt, 'narration', s.narration,
                                                                   'duration_s', s.duration_s, 'backend', s.backend, 'asset_key', s.asset_key)
                                                order by s.scene_index)
                                 from mdame.scenes s where s.unit_id = u.id), '[]'::jsonb))
    from mdame.unit_reviews r
    join mdame.work_units u on u.id = r.unit_id
   where r.unit_id = p_unit_id;
$$;
