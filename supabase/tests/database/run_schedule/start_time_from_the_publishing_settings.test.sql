begin;
select plan(5);

select is((select row(time_zone, start_time)::text from mdame.run_schedule('{"time_zone": "Asia/Jakarta", "publish_time": null, "run_time": null}')),
          row('UTC', time '06:00')::text, 'no time set: 06:00 UTC, whatever the zone');
select is((select row(time_zone, start_time)::text from mdame.run_schedule('{"time_zone": "Asia/Jakarta", "publish_time": "18:00", "run_time": null}')),
          row('Asia/Jakarta', time '14:00')::text, 'publish_time only: 4 hours before it, in the zone');
select is((select start_time from mdame.run_schedule('{"time_zone": "Asia/Kolkata", "publish_time": "02:15", "run_time": null}')),
          time '22:15', 'before local midnight when publish_time is early');
select is((select row(time_zone, start_time)::text from mdame.run_schedule('{"time_zone": "America/New_York", "publish_time": "18:00", "run_time": "09:30"}')),
          row('America/New_York', time '09:30')::text, 'run_time wins over publish_time');
select is((select row(time_zone, start_time)::text from mdame.run_schedule('{"time_zone": "Pacific/Kiritimati", "publish_time": null, "run_time": "05:00"}')),
          row('Pacific/Kiritimati', time '05:00')::text, 'run_time alone');

select * from finish();
rollback;
