begin;
\ir ../_fixtures.psql
select plan(6);

create temp table rej as select * from tests.unit_awaiting_review('reject', '1h');
create temp table pub as select * from tests.unit_awaiting_review('publish', '1h');
create temp table later as select * from tests.unit_awaiting_review('reject', '3h');
update mdame.unit_reviews set requested_at = requested_at - interval '2 hours', expires_at = expires_at - interval '2 hours'
 where unit_id in ((select id from rej), (select id from pub), (select id from later));

select is(mdame.expire_reviews(), '{"published": 1, "rejected": 1}'::jsonb, 'the two expired reviews are decided');
select is((select stage from mdame.work_units where id = (select id from rej)), 'rejected', 'on_expiry reject rejects');
select is((select reason from mdame.unit_reviews where unit_id = (select id from rej)), 'expired: not reviewed within 01:00:00', 'with the reason expired');
select is((select stage from mdame.work_units where id = (select id from pub)), 'publish', 'on_expiry publish approves');
select is((select decided_by from mdame.unit_reviews where unit_id = (select id from pub)), 'expiry', 'decided by expiry');
select is((select stage from mdame.work_units where id = (select id from later)), 'awaiting_review', 'a review not yet expired still waits');

select * from finish();
rollback;
