begin;
\ir ../_fixtures.psql
select plan(7);

select is(mdame.record_provider_usage('call-1', 'gemini', 'gemini-2.5-flash', '{"input_tokens": 1000, "output_tokens": 200}', false, 'tech-explained'),
          0.0008::numeric, 'a call costs its tokens at the provider''s default price (1000 x 0.3 + 200 x 2.5 per million)');
select is((select count(*)::int from mdame.provider_usage where call_key = 'call-1'), 2, 'a row per unit kind');
select is(mdame.record_provider_usage('call-1', 'gemini', 'gemini-2.5-flash', '{"input_tokens": 1000, "output_tokens": 200}', false, 'tech-explained'),
          0.0008::numeric, 'a recording sent again returns the same cost');
select is((select count(*)::int from mdame.provider_usage where call_key = 'call-1'), 2, 'and counts the call once');
select is(mdame.record_provider_usage('call-2', 'gemini', 'gemini-2.5-pro', '{"input_tokens": 1000}', false, 'tech-explained'),
          0.00125::numeric, 'a model with its own row is priced by it');
select is(mdame.record_provider_usage('call-3', 'gemini', 'gemini-2.5-flash', '{"input_tokens": 1000, "output_tokens": 200}', true, 'tech-explained'),
          0::numeric, 'a cached answer costs nothing');
select is((select bool_and(cached) from mdame.provider_usage where call_key = 'call-3'), true, 'and says so');

select * from finish();
rollback;
