begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
update pgmq.q_render set read_ct = 3, vt = now() - interval '1 second' where msg_id = (select msg_id from m);

select is((mdame.tick()->>'dead_lettered')::int, 1, 'the first tick dead-letters the exhausted job');
select is((mdame.tick()->>'dead_lettered')::int, 0, 'the next tick finds nothing more');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m)), 1::bigint, 'one dead letter');
select is(tests.event_count((select id from u), 'stage_entered', 'failed'), 1::bigint, 'the unit fails once');

select * from finish();
rollback;
