-- The end every recorded window shares (record_video_analytics, record_counted_video_analytics): its
-- fetch marked fetched, its queue message archived in the same transaction (so the message leaves
-- the queue only once the row is written) when p_msg_id is given, and an event analytics_fetched
-- with the figures.

create or replace function mdame.close_analytics_fetch(p_publication mdame.publications, p_window_days integer, p_msg_id bigint, p_figures jsonb)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
begin
  update mdame.analytics_fetches
     set status = 'fetched', finished_at = mdame.engine_now(), last_error = null
   where publication_id = p_publication.id and window_days = p_window_days;
  if p_msg_id is not null then
    perform pgmq.archive('analytics_fetches', p_msg_id);
  end if;
  select * into v_unit from mdame.work_units where id = p_publication.unit_id;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'analytics', 'analytics_fetched', jsonb_build_object(
    'publication_id', p_publication.id, 'platform', p_publication.platform, 'external_id', p_publication.external_id,
    'window_days', p_window_days) || p_figures);
end;
$$;

comment on function mdame.close_analytics_fetch(mdame.publications, integer, bigint, jsonb) is 'internal: marks a window fetched, archives its message and logs it, for the two recording RPCs';
