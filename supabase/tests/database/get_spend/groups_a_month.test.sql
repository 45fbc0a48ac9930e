begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.record_provider_usage('c1', 'gemini', 'gemini-2.5-flash', '{"input_tokens": 1000, "output_tokens": 200}', false, 'tech-explained');
select mdame.record_provider_usage('c2', 'gemini', 'gemini-2.5-flash', '{"input_tokens": 1000, "output_tokens": 200}', true, 'tech-explained');
select mdame.record_provider_usage('c3', 'edge-tts', 'edge', '{"characters": 800}', false, 'sains-singkat');
insert into mdame.provider_usage (call_key, provider, model, kind, quantity, usd, dimension_id, recorded_at)
values ('old', 'gemini-image', 'm', 'images', 1, 0.039, 'tech-explained', now() - interval '40 days');

select is((select row(calls, cached_calls, quantity, usd)::text from mdame.get_spend('tech-explained') where kind = 'input_tokens'),
          '(2,1,2000,0.0003000)', 'calls, cached calls, quantity and cost of a kind');
select is((select count(*)::int from mdame.get_spend()), 3, 'every dimension without a filter');
select is((select count(*)::int from mdame.get_spend('tech-explained') where provider = 'gemini-image'), 0, 'an earlier month is left out');
select is((select usd from mdame.get_spend('tech-explained', (now() - interval '40 days')::date)), 0.039::numeric, 'and shown for its month');

select * from finish();
rollback;
