begin;
\ir ../_fixtures.psql
select plan(3);

-- A database without pg_net (the Supabase CLI's reset alone drops the stand-in's schema net): the
-- wake fails with MDN01 saying what is missing and how to install it, instead of a missing relation.
set local client_min_messages = warning;
drop extension if exists pg_net cascade;
drop schema if exists net cascade;

select throws_ok($$ select mdame.wake_stage_runner('voice') $$, 'MDN01',
  'pg_net is not installed (no net.http_post or net._http_response): the stage runner cannot be woken',
  'the wake names what is missing');
select throws_ok($$ select mdame.wake_next_tick() $$, 'MDN01',
  'pg_net is not installed (no net.http_post or net._http_response): the stage runner cannot be woken',
  'so does the successor of a tick');

-- Nothing is half-done: the refused wake recorded no tick in flight.
select is((select count(*)::int from mdame.stage_runner_wakes w where w.reason = 'voice' and w.woken_at >= now()), 0,
  'no tick is recorded in flight');

select * from finish();
rollback;
