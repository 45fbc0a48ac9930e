begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_ready_to_publish();
select throws_ok(format('select mdame.begin_publication(%L, %L)', gen_random_uuid(), tests.account_of('tech-explained')),
                 'MDN01', null, 'a unit that does not exist is refused');
select throws_ok(format('select mdame.begin_publication(%L, %L)', (select id from u), tests.account_of('sains-singkat')),
                 'MDN01', null, 'an account of another dimension is refused');
select is((select count(*) from mdame.publications where unit_id = (select id from u)), 0::bigint, 'no publication is created');

select * from finish();
rollback;
