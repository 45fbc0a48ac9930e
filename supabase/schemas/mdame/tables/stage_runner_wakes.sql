create table mdame.stage_runner_wakes (
  request_id bigint not null,
  reason text not null,
  woken_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  constraint stage_runner_wakes_pkey primary key (request_id)
);

comment on table mdame.stage_runner_wakes is 'Tick requests posted through net.http_post whose answer pg_net has not recorded yet: the ticks in flight, which mdame.wake_stage_runner bounds.';

alter table mdame.stage_runner_wakes enable row level security;
