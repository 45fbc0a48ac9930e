begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.record_provider_usage('before', 'gemini-image', 'm', '{"images": 1}', false, 'tech-explained');
select is((select row(usd_per_unit, source, default_usd_per_unit)::text from mdame.set_provider_price('gemini-image', '*', 'images', 0.02)),
          '(0.02,operator,0.039)', 'the operator''s price replaces the default, which is kept');
select is(mdame.record_provider_usage('after', 'gemini-image', 'm', '{"images": 1}', false, 'tech-explained'), 0.02::numeric,
          'calls from now on cost the new price');
select is((select usd from mdame.provider_usage where call_key = 'before'), 0.039::numeric, 'calls recorded before keep theirs');
select throws_ok($$select mdame.set_provider_price('gemini', '*', 'output_tokens', -1)$$, '23514', null, 'a negative price is refused');

select * from finish();
rollback;
