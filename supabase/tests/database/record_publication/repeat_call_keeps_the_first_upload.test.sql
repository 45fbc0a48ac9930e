begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));

select lives_ok(format('select mdame.record_publication(%s, %L, %L, null)', (select msg_id from m), (select id from p), 'vid-1'),
                'the first call records the upload');
select is((select external_id from mdame.record_publication((select msg_id from m), (select id from p), 'vid-other', null)), 'vid-1',
          'a repeated call returns the publication unchanged');
select is((select count(*)::int from mdame.events where unit_id = (select id from u) and kind = 'published'), 1,
          'the publication is logged once');

select * from finish();
rollback;
