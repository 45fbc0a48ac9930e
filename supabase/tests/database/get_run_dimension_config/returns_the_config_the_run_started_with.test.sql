begin;
select plan(4);

create temp table r as
  select * from mdame.start_run('test-config-' || gen_random_uuid(), 'dev', 'manual', current_date, 'tech-explained');
create temp table at_start as select mdame.get_run_dimension_config((select run_id from r), 'tech-explained') as config;
create temp table dimension_then as select * from mdame.dimensions where id = 'tech-explained';
update mdame.dimensions set tts_rate = '+15%', daily_limit = 7 where id = 'tech-explained';

select is((select config from at_start), (select config from mdame.run_dimensions where run_id = (select run_id from r)),
          'the configuration the run recorded for the dimension is returned');
select is((select array[config->>'id', config->>'tts_rate', config->>'daily_limit'] from at_start),
          (select array[id, tts_rate, daily_limit::text] from dimension_then), 'it is the dimension''s configuration when the run started');
select is(mdame.get_run_dimension_config((select run_id from r), 'tech-explained'), (select config from at_start),
          'a later change to the dimension does not change what the run started with');
select is(mdame.get_run_dimension_config((select run_id from r), 'sains-singkat'), null,
          'a dimension the run did not start has no configuration in it');

select * from finish();
rollback;
