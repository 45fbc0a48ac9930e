-- video_analytics.platform is the publication's, whoever writes the row: set from
-- mdame.publications before each insert (and an update that moves the row to another publication),
-- so the one place a video's platform is declared stays publications.platform.

create or replace function mdame.video_analytics_platform()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  select p.platform into new.platform from mdame.publications p where p.id = new.publication_id;
  return new;
end;
$$;

comment on function mdame.video_analytics_platform() is 'internal: trigger copying a video_analytics row''s platform from its publication';

create trigger video_analytics_platform before insert or update of publication_id on mdame.video_analytics
  for each row execute function mdame.video_analytics_platform();
