begin;
\ir ../_fixtures.psql
select plan(2);

select mdame.reject_review((select id from tests.unit_awaiting_review()), 'wrong facts');
select mdame.reject_review((select id from tests.unit_awaiting_review()), 'wrong facts');
select mdame.reject_review((select id from tests.unit_awaiting_review()), 'expired: not reviewed within 1 day', 'expiry');
select mdame.approve_review((select id from tests.unit_awaiting_review()));
select tests.unit_awaiting_review();

create temp table w as select mdame.weekly_report('tech-explained', current_date) as report;
select is((select (report->'reviews') - 'rejections'::text from w), '{"approved": 1, "rejected": 3, "expired": 1}'::jsonb,
          'the week''s decisions: approved, rejected, and those decided by expiry; one still waiting is none');
select is((select report->'reviews'->'rejections' from w),
          '[{"reason": "wrong facts", "count": 2}, {"reason": "expired: not reviewed within 1 day", "count": 1}]'::jsonb,
          'the rejections'' reasons, the most frequent first');

select * from finish();
rollback;
