begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('render');
select throws_ok(format('select mdame.fail_worker_job(''stage_tasks'', 1, %L, ''x'', true, ''wh-q'')', (select id from u)),
                 'MDS01', null, 'a failure reported for a queue no worker pulls is refused');
select throws_ok(format('select mdame.fail_worker_job(''render'', 1, %L, ''x'', true, ''wh-u'')', gen_random_uuid()),
                 'MDN01', null, 'a failure for a unit that does not exist is refused');
select is((select count(*) from mdame.webhook_receipts where webhook_id in ('wh-q', 'wh-u')), 0::bigint, 'neither webhook-id is spent');

select * from finish();
rollback;
