begin;
\ir ../_fixtures.psql
select plan(4);

update mdame.dimensions set budget = '{"daily_usd": 1}' where id = 'tech-explained';
select mdame.record_provider_usage('img-1', 'gemini-image', 'm', '{"images": 10}', false, 'tech-explained');
select is((select count(*)::int from mdame.alerts where kind = 'spend_budget'), 0, '0.39 of 1 USD raises nothing');
select mdame.record_provider_usage('img-2', 'gemini-image', 'm', '{"images": 11}', false, 'tech-explained');
select is((select details->>'threshold' from mdame.alerts where kind = 'spend_budget'), '80', '0.82 of 1 USD raises the 80 % alert');
select mdame.record_provider_usage('img-3', 'gemini-image', 'm', '{"images": 1}', false, 'tech-explained');
select is((select count(*)::int from mdame.alerts where kind = 'spend_budget'), 1, 'once a period');
select mdame.record_provider_usage('img-4', 'gemini-image', 'm', '{"images": 5}', false, 'tech-explained');
select is((select array_agg(details->>'threshold' order by details->>'threshold') from mdame.alerts where kind = 'spend_budget'),
          array['100', '80'], 'reaching the cap raises the cap alert');

select * from finish();
rollback;
