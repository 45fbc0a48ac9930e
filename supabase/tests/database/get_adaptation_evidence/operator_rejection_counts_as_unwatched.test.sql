begin;
\ir ../_fixtures.psql
select plan(5);

create temp table rejected as select * from tests.unit_awaiting_review();
create temp table expired as select * from tests.unit_awaiting_review();
create temp table waiting as select * from tests.unit_awaiting_review();
select mdame.reject_review((select id from rejected), 'off topic');
select mdame.reject_review((select id from expired), 'expired: not reviewed within 1 day', 'expiry');

create temp table e as select * from mdame.get_adaptation_evidence('tech-explained', now() - interval '1 day');
select is((select array_agg(distinct unit_id) from e), array[(select id from rejected)],
  'only the operator''s rejection is evidence: not an expiry, not a unit still waiting');
select is((select array_agg(platform order by platform) from e),
  (select array_agg(distinct platform order by platform) from mdame.dimension_accounts where dimension_id = 'tech-explained' and active),
  'a row for each platform the dimension publishes to');
select is((select retention from e where platform = 'youtube'), 0::double precision, 'a rejected video counts as watched by nobody');
select is((select sum(views)::bigint from e), 0::bigint, 'with no view anywhere');
select is((select max(window_days) from e), 0, 'and no analytics window');

select * from finish();
rollback;
