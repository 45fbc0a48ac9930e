begin;
\ir ../_fixtures.psql
select plan(2);

create temp table p as select * from tests.fresh_publication();
create temp table q as select * from tests.fresh_publication();
select mdame.record_publication(null, (select id from p), 'video-locked', null);
select mdame.record_publication(null, (select id from q), 'video-public', null);
select mdame.record_publication_privacy((select id from p), 'private', 'public');
select mdame.record_publication_privacy((select id from q), 'public', 'public');
select is((select array_agg(external_id) from mdame.list_locked_publications()), array['video-locked'], 'only the upload YouTube locked is listed');
select is((select channel_handle from mdame.list_locked_publications()), '@tech-explained-demo', 'with its channel');

select * from finish();
rollback;
