begin;
\ir ../_fixtures.psql
select plan(5);

-- Three spend records: two older than 400 days, one of this month.
insert into mdame.provider_usage (call_key, provider, model, kind, quantity, usd, dimension_id, recorded_at)
values ('old-1', 'gemini', 'm', 'input_tokens', 100, 0.001, 'tech-explained', now() - interval '500 days'),
       ('old-2', 'gemini-image', 'm', 'images', 1, 0.039, 'tech-explained', now() - interval '401 days'),
       ('new-1', 'gemini', 'm', 'input_tokens', 100, 0.001, 'tech-explained', now() - interval '2 days');

select results_eq($$select due, deleted from mdame.housekeeping(true) where kind = 'provider_usage'$$, $$values (2::bigint, 0::bigint)$$,
  'a dry run counts the two older than spend_days (400) and deletes nothing');
select results_eq($$select due, deleted from mdame.housekeeping(false) where kind = 'provider_usage'$$, $$values (2::bigint, 2::bigint)$$,
  'a pass deletes them');
select is((select array_agg(call_key) from mdame.provider_usage), array['new-1'], 'this month''s record stays');

select throws_ok($$select mdame.set_housekeeping_setting('spend_days', 30)$$, 'MDV01', null,
  'spend_days under 35 is refused: a month''s budget reads its whole month');
select mdame.set_housekeeping_setting('spend_days', 35);
select is((select value from mdame.housekeeping_settings() where name = 'spend_days'), 35, 'at 35 it is taken');

select * from finish();
rollback;
