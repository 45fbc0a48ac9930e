-- Producer: a YouTube publication confirmed published whose unit's render has a cover image
-- (work_units.video->>'cover_key', reported by the render-runner) gets its thumbnail set enqueued,
-- in the transaction that confirms it, once: the row in mdame.thumbnail_sets and its message on the
-- thumbnail_sets queue, visible after thumbnail_first_check (settings, default 30 s: YouTube
-- processes a Short for a while before a thumbnail can be applied). A render without a cover, or a
-- video housekeeping released, enqueues nothing.

create or replace function mdame.enqueue_thumbnail_set()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_cover text;
  v_msg_id bigint;
begin
  select u.video->>'cover_key' into v_cover from mdame.work_units u
   where u.id = new.unit_id and not (u.video ? 'deleted_at');
  if v_cover is null then
    return new;
  end if;
  insert into mdame.thumbnail_sets (publication_id, cover_key, enqueued_at)
  values (new.id, v_cover, mdame.engine_now())
  on conflict do nothing;
  if not found then
    return new;
  end if;
  select s into v_msg_id from pgmq.send('thumbnail_sets', jsonb_build_object('publication_id', new.id),
    extract(epoch from mdame.setting_interval('thumbnail_first_check', interval '30 seconds'))::integer) as s;
  update mdame.thumbnail_sets set msg_id = v_msg_id where publication_id = new.id;
  return new;
end;
$$;

comment on function mdame.enqueue_thumbnail_set() is 'internal: trigger enqueueing a published YouTube video''s thumbnail set';

create trigger publications_enqueue_thumbnail after insert or update of status on mdame.publications
  for each row when (new.status = 'published' and new.platform = 'youtube' and new.external_id is not null)
  execute function mdame.enqueue_thumbnail_set();
