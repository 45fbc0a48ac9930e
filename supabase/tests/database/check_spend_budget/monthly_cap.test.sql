begin;
\ir ../_fixtures.psql
select plan(2);

update mdame.dimensions set budget = '{"monthly_usd": 0.05}' where id = 'tech-explained';
select mdame.record_provider_usage('img-1', 'gemini-image', 'm', '{"images": 1}', false, 'tech-explained');
select is((select row(fits, period)::text from mdame.check_spend_budget('tech-explained', 'gemini-image', 'm', '{"images": 1}')),
          '(f,month)', 'the monthly cap defers a call the day has room for');
select is((select fits from mdame.check_spend_budget('sains-singkat', 'gemini-image', 'm', '{"images": 1}')), true,
          'another dimension''s spend is its own');

select * from finish();
rollback;
