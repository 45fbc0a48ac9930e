begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_at_stage('publish');
select throws_ok(format('select mdame.begin_publication(%L, %L)', (select id from u), tests.account_of('tech-explained')),
                 'MDS01', null, 'a unit with no rendered video cannot be published');
select is((select count(*) from mdame.publications where unit_id = (select id from u)), 0::bigint, 'no publication is created');

select * from finish();
rollback;
