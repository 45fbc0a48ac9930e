begin;
\ir ../_fixtures.psql
select plan(3);

create temp table older as select * from tests.unit_at_stage('script');
update mdame.work_units set created_at = now() - interval '1 day', topic = '{"title": "Older topic"}' where id = (select id from older);
create temp table newer as select * from tests.unit_at_stage('script');
update mdame.work_units set topic = '{"title": "Newer topic"}' where id = (select id from newer);

select is((select array_agg(title) from mdame.get_topic_history('tech-explained', 2)), array['Newer topic', 'Older topic'],
          'a dimension''s topics come newest first');
select is((select count(*) from mdame.get_topic_history('tech-explained', 1)), 1::bigint, 'as many as asked');
select is((select count(*) from mdame.get_topic_history('tech-explained', -5)), 0::bigint, 'and none for a negative limit');

select * from finish();
rollback;
