begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));
create temp table before as
  select q.vt, w.lease_expires_at from pgmq.q_stage_tasks q, mdame.work_units w
   where q.msg_id = (select msg_id from m) and w.id = (select id from u);

select is(mdame.extend_stage_lease((select msg_id from m), (select stale_holder from h), 300), false,
          'the heartbeat of a claim another read has superseded is refused');
select is((select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m)), (select vt from before), 'the task''s visibility is unchanged');
select is((select lease_expires_at from mdame.work_units where id = (select id from u)), (select lease_expires_at from before),
          'the unit''s lease expiry is unchanged');
select is((select lease_holder from mdame.work_units where id = (select id from u)), (select current_holder from h), 'the lease stays with the current holder');

-- A task without a unit: only the read count in the holder tells the claims apart.
create temp table ingest as select mdame.enqueue_stage_task('ingest', (select run_id from u), null, 'tech-explained') as msg_id;
create temp table hi as select * from tests.stale_and_current_claim((select msg_id from ingest));
create temp table ingest_before as select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from ingest);
select is(mdame.extend_stage_lease((select msg_id from ingest), (select stale_holder from hi), 300), false,
          'a superseded claim of an ingest task is refused');
select is((select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from ingest)), (select vt from ingest_before),
          'and the ingest task''s visibility is unchanged');

select * from finish();
rollback;
