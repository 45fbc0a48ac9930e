begin;
\ir ../_fixtures.psql
select plan(4);

create temp table rejected as select * from tests.unit_awaiting_review();
create temp table expired as select * from tests.unit_awaiting_review();
create temp table waiting as select * from tests.unit_awaiting_review();
select mdame.reject_review((select id from rejected), 'off topic');
select mdame.reject_review((select id from expired), 'expired: not reviewed within 1 day', 'expiry');

create temp table e as select * from mdame.get_adaptation_evidence('tech-explained', now() - interval '1 day');
select is((select array_agg(unit_id) from e), array[(select id from rejected)], 'only the operator''s rejection is evidence: not an expiry, not a unit still waiting');
select is((select retention from e), 0::double precision, 'a rejected video counts as watched by nobody');
select is((select engaged_views from e), 0::bigint, 'with no engaged view');
select is((select window_days from e), 0, 'and no analytics window');

select * from finish();
rollback;
