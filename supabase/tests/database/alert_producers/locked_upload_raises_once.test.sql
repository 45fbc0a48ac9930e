begin;
\ir ../_fixtures.psql
select plan(5);

create temp table locked as select * from tests.fresh_publication();
create temp table chosen as select * from tests.fresh_publication();
select mdame.record_publication(null, (select id from locked), 'post-self-only', null);
select mdame.record_publication(null, (select id from chosen), 'video-private-by-choice', null);
select mdame.record_publication_privacy((select id from chosen), 'private', 'private');
select is((select count(*) from mdame.alerts where kind = 'upload_locked'), 0::bigint, 'a privacy the dimension asked for raises nothing');

select mdame.record_publication_privacy((select id from locked), 'SELF_ONLY', 'PUBLIC_TO_EVERYONE');
select is((select count(*) from mdame.alerts where kind = 'upload_locked'), 1::bigint, 'a post given another privacy than asked raises upload_locked');
select is((select dimension_id || ' ' || (details->>'external_id') || ' ' || (details->>'privacy_status') || ' ' || (details->>'privacy_requested')
             from mdame.alerts where kind = 'upload_locked'),
          'tech-explained post-self-only SELF_ONLY PUBLIC_TO_EVERYONE', 'for the dimension, with the privacy given and the one asked');
select matches((select summary from mdame.alerts where kind = 'upload_locked'), '^The youtube upload post-self-only on @tech-explained-demo is SELF_ONLY, not PUBLIC_TO_EVERYONE as asked: ',
               'the summary says what happened');
update mdame.publications set privacy_status = 'private' where id = (select id from locked);
select mdame.set_engine_clock(interval '7 hours');
update mdame.publications set privacy_status = 'SELF_ONLY' where id = (select id from locked);
select is((select count(*) from mdame.alerts where kind = 'upload_locked'), 1::bigint, 'once per publication, whatever writes it later');

select * from finish();
rollback;
