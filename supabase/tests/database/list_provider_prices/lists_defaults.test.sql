begin;
select plan(2);

select is((select usd_per_unit from mdame.list_provider_prices() where provider = 'gemini' and model = '*' and kind = 'output_tokens'),
          0.0000025::numeric, 'the seeded default prices are listed');
select is((select count(*)::int from mdame.list_provider_prices() where source <> 'default'), 0, 'no override before the operator sets one');

select * from finish();
rollback;
