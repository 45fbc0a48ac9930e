begin;
select plan(4);

select mdame.set_provider_price('gemini-image', '*', 'images', 0.02);
select is((select row(usd_per_unit, source)::text from mdame.reset_provider_price('gemini-image', '*', 'images')), '(0.039,default)',
          'a seeded row returns to its default');
select mdame.set_provider_price('my-llm', 'big', 'input_tokens', 0.001);
select is((select provider from mdame.reset_provider_price('my-llm', 'big', 'input_tokens')), null, 'an added row is removed');
select is((select count(*)::int from mdame.provider_prices where provider = 'my-llm'), 0, 'and gone');
select throws_ok($$select mdame.reset_provider_price('nobody', '*', 'images')$$, 'MDN01', null, 'an unknown row is refused');

select * from finish();
rollback;
