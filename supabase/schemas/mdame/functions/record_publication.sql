-- Marks one publication published under the publish task's lease, without archiving the task:
-- each account's finished upload is recorded as soon as it is done, so a crash or a failure on a
-- later account leaves it published and no attempt uploads it again. complete_publication, once
-- every account has one, publishes the unit and archives the task. Locks as complete_publication
-- does (the unit, then the publication); the upload is recorded whoever holds the lease now, since
-- the video is on the platform either way, and a repeated call returns the row unchanged.

create or replace function mdame.record_publication(p_msg_id bigint, p_publication_id uuid, p_external_id text, p_holder text)
returns mdame.publications
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_pub mdame.publications;
  v_lock record;
begin
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(v_pub.unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  return mdame.mark_publication_published(p_publication_id, p_external_id, (v_lock.unit).run_id);
end;
$$;
