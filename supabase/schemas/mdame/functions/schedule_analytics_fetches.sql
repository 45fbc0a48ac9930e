-- The hourly schedule (pg_cron job mdame-analytics-fetches): every published YouTube video,
-- Instagram Reel and Facebook Reel, and every TikTok post TikTok gave a post id (a public post: an
-- unaudited app's SELF_ONLY post has none, and TikTok's video/query knows posts by that id alone), whose
-- day-3 or day-7 window has come on the engine's clock (published_at + 3 or 7 days, mdame.engine_now),
-- on an active and healthy account, whose window was never enqueued nor fetched, gets one message
-- on the analytics_fetches queue and its row in mdame.analytics_fetches; that row makes a second
-- schedule (or a racing one) skip the window. The stage runner is woken when anything was enqueued.
-- Returns how many windows were enqueued.

create or replace function mdame.schedule_analytics_fetches()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
  v_due record;
  v_msg_id bigint;
  v_count integer := 0;
begin
  for v_due in
    select p.id as publication_id, w.days as window_days, p.published_at + make_interval(days => w.days) as due_at
      from mdame.publications p
      join mdame.dimension_accounts a on a.id = p.account_id
     cross join (values (3), (7)) as w(days)
     where (p.platform <> 'tiktok' or p.external_id ~ '^[0-9]+$')
       and p.status = 'published' and p.external_id is not null and p.published_at is not null
       and a.active and a.health_state = 'ok'
       and p.published_at + make_interval(days => w.days) <= v_now
       and not exists (select 1 from mdame.analytics_fetches f where f.publication_id = p.id and f.window_days = w.days)
       and not exists (select 1 from mdame.video_analytics v where v.publication_id = p.id and v.window_days = w.days)
     order by 3, 1, 2
  loop
    insert into mdame.analytics_fetches (publication_id, window_days, due_at, enqueued_at)
    values (v_due.publication_id, v_due.window_days, v_due.due_at, v_now)
    on conflict do nothing;
    if not found then
      continue;
    end if;
    select s into v_msg_id from pgmq.send('analytics_fetches',
      jsonb_build_object('publication_id', v_due.publication_id, 'window_days', v_due.window_days)) as s;
    update mdame.analytics_fetches set msg_id = v_msg_id
     where publication_id = v_due.publication_id and window_days = v_due.window_days;
    v_count := v_count + 1;
  end loop;
  if v_count > 0 then
    perform mdame.wake_stage_runner('analytics');
  end if;
  return v_count;
end;
$$;
