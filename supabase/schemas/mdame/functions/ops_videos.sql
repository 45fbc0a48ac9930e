-- The ops dashboard's recent publications (GET /pipeline/ops/videos, shared/contracts/ops.ts
-- OpsVideo): newest first by when they were published (else created), with the platform's public
-- link of each uploaded video. At most 500.

create or replace function mdame.ops_videos(p_limit integer)
returns jsonb
language sql
stable security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(v.video order by v.at desc, v.id), '[]'::jsonb)
    from (
      select p.id, coalesce(p.published_at, p.created_at) as at,
             jsonb_build_object(
               'id', p.id, 'unit_id', p.unit_id, 'run_id', u.run_id, 'dimension_id', u.dimension_id,
               'platform', p.platform, 'channel_handle', a.channel_handle, 'external_id', p.external_id,
               'url', mdame.external_url(p.platform, p.external_id, a.channel_handle),
               'title', coalesce(u.script->>'title', u.topic->>'title'),
               'status', p.status, 'privacy_status', p.privacy_status, 'deferred_reason', p.deferred_reason,
               'created_at', p.created_at, 'published_at', p.published_at) as video
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       order by coalesce(p.published_at, p.created_at) desc, p.id
       limit least(greatest(coalesce(p_limit, 0), 0), 500)
    ) v;
$$;
