begin;
\ir ../_fixtures.psql
select plan(7);

-- A dead letter through the one retry rule.
select * from tests.unit_at_stage('script') \gset u_
select tests.send_task('script', :'u_id') as msg \gset
select mdame.retry_or_dead_letter('stage_tasks', 'script', :msg, 9, '{"stage":"script"}', :'u_id', :'u_run_id', 'LLM refused', false);
select is((select kind || ' ' || dimension_id from mdame.alerts where dedupe_key = 'dead_letter:stage_tasks:' || :msg),
          'dead_letter tech-explained', 'a dead letter raises an alert for its dimension');
select ok((select details->>'fix' like 'mdame dlq retry %' from mdame.alerts where dedupe_key = 'dead_letter:stage_tasks:' || :msg),
          'with the command that retries it');

-- A render that failed the quality gate.
select * from tests.unit_at_stage('render') \gset r_
insert into mdame.dead_letters (queue_name, msg_id, read_ct, payload, last_error, unit_id)
values ('render', 424242, 3, '{}', 'quality gate failed: integrated loudness -30 LUFS', :'r_id');
select is((select kind from mdame.alerts where dedupe_key = 'quality_gate_failed:' || :'r_id'), 'quality_gate_failed',
          'a render dead-lettered by the quality gate raises quality_gate_failed');

-- An account that needs reconnecting.
select id as acct from mdame.dimension_accounts where channel_handle = '@tech-explained-demo' \gset
select mdame.mark_account_needs_reconnect(:'acct', 'invalid_grant');
select mdame.mark_account_needs_reconnect(:'acct', 'invalid_grant');
select is((select occurrences from mdame.alerts where dedupe_key = 'needs_reconnect:' || :'acct'), 1,
          'needs_reconnect raises one alert, not one per repeated mark');

-- A run that ends failed.
select * from tests.unit_at_stage('failed') \gset f_
update mdame.work_units set error = 'voice: no provider' where id = :'f_id';
select mdame.close_run_if_done(:'f_run_id');
select is((select status from mdame.pipeline_runs where id = :'f_run_id'), 'failed', 'the run ended failed');
select is((select kind from mdame.alerts where dedupe_key = 'run_failed:' || :'f_run_id'), 'run_failed', 'and raised run_failed');
select is((select details->'failed_units'->0->>'error' from mdame.alerts where dedupe_key = 'run_failed:' || :'f_run_id'),
          'voice: no provider', 'naming its failed units'' errors');

select * from finish();
rollback;
