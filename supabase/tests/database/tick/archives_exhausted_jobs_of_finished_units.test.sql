begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('failed');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
update pgmq.q_render set read_ct = 3, vt = now() - interval '1 second' where msg_id = (select msg_id from m);
-- A visual job whose unit no longer exists.
create temp table orphan as select pgmq.send('visual_generation', jsonb_build_object('unit_id', gen_random_uuid())) as msg_id;
update pgmq.q_visual_generation set read_ct = 3, vt = now() - interval '1 second' where msg_id = (select msg_id from orphan);

select is((mdame.tick()->>'dead_lettered')::int, 0, 'exhausted jobs with no open unit are not dead-lettered');
select ok(tests.archived('render', (select msg_id from m)), 'the job of a failed unit is archived');
select ok(tests.archived('visual_generation', (select msg_id from orphan)), 'the job of a missing unit is archived');
select is((select count(*) from mdame.dead_letters), 0::bigint, 'no dead letter is written');
select is((select (stage, error) from mdame.work_units where id = (select id from u)), ('failed'::text, null::text), 'the failed unit is unchanged');

select * from finish();
rollback;
