begin;
select plan(5);

create temp table w as
  select ('w', 'render', 'h', 1, 1, 0, 10, now(), now() - interval '25 seconds', null)::mdame.worker_heartbeats as h;

select is((select mdame.worker_status(h, now()) from w), 'live', 'within three beat intervals a worker is live');
select is((select mdame.worker_status(h, now() + interval '10 seconds') from w), 'stale', 'past three intervals it is stale');
select is((select mdame.worker_status(h, now(), interval '20 seconds') from w), 'stale', 'an explicit stale_after overrides the intervals');
select is((select mdame.worker_status(h, now(), interval '1 minute') from w), 'live', 'either way');
update w set h.stopped_at = now();
select is((select mdame.worker_status(h, now()) from w), 'stopped', 'a stopped worker is stopped, whatever its last beat');

select * from finish();
rollback;
