-- Keeps publications.deferred_since: set (engine clock) when a publication enters status deferred,
-- kept while it stays there (a deferral renewed keeps its first time), cleared when it leaves.

create or replace function mdame.track_deferred_since()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.status <> 'deferred' then
    new.deferred_since := null;
  elsif tg_op = 'INSERT' or old.status is distinct from 'deferred' then
    new.deferred_since := mdame.engine_now();
  else
    new.deferred_since := coalesce(old.deferred_since, mdame.engine_now());
  end if;
  return new;
end;
$$;

comment on function mdame.track_deferred_since() is 'internal: trigger keeping publications.deferred_since';

create trigger publications_deferred_since before insert or update of status on mdame.publications
  for each row execute function mdame.track_deferred_since();
