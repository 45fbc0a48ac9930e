-- Gives a post's place in its account's publishing window back: the post failed before Meta accepted
-- anything (the container or the Reel was never created). True when a place was given back.

create or replace function mdame.release_meta_post(p_publication_id uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from mdame.meta_posts where publication_id = p_publication_id;
  return found;
end;
$$;
