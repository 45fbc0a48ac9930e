-- weekly reports by the render runner: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_render_runner", "rpcs": ["assert_environment", "extend_worker_job", "read_worker_jobs", "record_worker_heartbeat", "record_worker_stop"], "component": "render-runner"}'::jsonb;
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_render_runner", "rpcs": ["assert_environment", "claim_weekly_reports", "complete_weekly_report", "extend_worker_job", "fail_weekly_report", "read_worker_jobs", "record_worker_heartbeat", "record_worker_stop", "weekly_report"], "component": "render-runner"}'::jsonb);

select mdame.restrict_function_privileges();
