begin;
\ir ../_fixtures.psql
select plan(7);

select is((select fits from mdame.check_spend_budget('tech-explained', 'gemini-image', 'm', '{"images": 1000}')), true,
          'a dimension without a budget always fits');
update mdame.dimensions set budget = '{"daily_usd": 0.1, "monthly_usd": 5}' where id = 'tech-explained';
select mdame.record_provider_usage('img-1', 'gemini-image', 'm', '{"images": 2}', false, 'tech-explained');
select is((select row(fits, period, spent_usd, budget_usd, estimate_usd)::text from mdame.check_spend_budget('tech-explained', 'gemini-image', 'm', '{"images": 1}')),
          '(f,day,0.078,0.1,0.039)', 'an image that would take the day past its cap does not fit, and says which cap');
select ok((select recheck_in_s between 1 and 900 from mdame.check_spend_budget('tech-explained', 'gemini-image', 'm', '{"images": 1}')),
          'the answer says to look again within 15 minutes');
select is((select details->>'threshold' from mdame.alerts where kind = 'spend_budget' and details->>'threshold' = '100'), '100',
          'the refusal raises the cap alert');
select is((select fits from mdame.check_spend_budget('tech-explained', 'pexels', 'm', '{"requests": 3}')), true, 'a free call fits under the cap');
update mdame.dimensions set budget = '{"daily_usd": 1}' where id = 'tech-explained';
select is((select fits from mdame.check_spend_budget('tech-explained', 'gemini-image', 'm', '{"images": 1}')), true, 'a raised budget lets it through');
select throws_ok($$select * from mdame.check_spend_budget('tech-explained', 'gemini', 'm', '{"input_tokens": "many"}')$$, '22023', null,
                 'an estimate that is not a number is refused');

select * from finish();
rollback;
