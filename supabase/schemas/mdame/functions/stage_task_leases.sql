-- Each message of the stage queue and where it stands, for the ops views: `waiting` (visible, never
-- read or read and handed back), `delayed` (sent with a delay, never read), `leased` (a claim holds
-- it: the unit's lease names this read of the message and ends when the message's visibility does,
-- as claim_stage_tasks and extend_stage_lease set them), `lease_expired` (that claim ran out and no
-- runner took the message again yet), `retrying` (a failed attempt's backoff, set by
-- retry_or_dead_letter: read before, invisible, and no live claim). A message without a unit has no
-- unit lease: read and invisible counts as leased. PL/pgSQL: the declared schema creates functions
-- before the queues.

create or replace function mdame.stage_task_leases(p_now timestamp with time zone)
returns table(msg_id bigint, read_ct integer, vt timestamp with time zone, unit_id uuid, holder text, state text)
language plpgsql
stable
set search_path = ''
as $$
begin
  return query
  select q.msg_id, q.read_ct, q.vt, u.id,
         case when q.read_ct > 0 and (u.id is null or mdame.holds_stage_claim(u.lease_holder, q.msg_id, q.read_ct)) then u.lease_holder end,
         case
           when q.read_ct = 0 then case when q.vt > p_now then 'delayed' else 'waiting' end
           when u.id is null and not (q.message ? 'unit_id') or mdame.holds_stage_claim(u.lease_holder, q.msg_id, q.read_ct) and u.lease_expires_at = q.vt
             then case when q.vt > p_now then 'leased' else 'lease_expired' end
           else case when q.vt > p_now then 'retrying' else 'waiting' end
         end
    from pgmq.q_stage_tasks q
    left join mdame.work_units u
      on u.id = case when q.message->>'unit_id' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then (q.message->>'unit_id')::uuid end;
end;
$$;

comment on function mdame.stage_task_leases(timestamp with time zone) is 'internal: the stage queue''s messages and their lease states, for ops_overview and ops_queues';
