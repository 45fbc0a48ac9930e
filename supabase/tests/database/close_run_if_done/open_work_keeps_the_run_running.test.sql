begin;
\ir ../_fixtures.psql
select plan(5);

create temp table open_unit as select * from tests.unit_at_stage('render');
insert into mdame.system_locks (name, holder, lease_expires_at) values ('pipeline:dev', (select run_id::text from open_unit), now() + interval '1 hour');
create temp table still_ingesting as select * from tests.unit_at_stage('published');
insert into mdame.run_dimensions (run_id, dimension_id, status) values ((select run_id from still_ingesting), 'sains-singkat', 'ingesting');

create temp table r as select * from mdame.close_run_if_done((select run_id from open_unit));
select is((select status from r), 'running', 'a run with a unit still at render stays running');
select is((select finished_at from r), null, 'with no finish time');
select is((select holder from mdame.system_locks where name = 'pipeline:dev'), (select run_id::text from open_unit), 'and keeps its lock');
select is((mdame.close_run_if_done((select run_id from still_ingesting))).status, 'running',
          'a run with a dimension still ingesting stays running though its units are terminal');
select is((select count(*) from mdame.events where run_id in ((select run_id from open_unit), (select run_id from still_ingesting))
             and kind like 'run\_%'), 0::bigint, 'no close is logged');

select * from finish();
rollback;
