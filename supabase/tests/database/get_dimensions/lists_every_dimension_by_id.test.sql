begin;
select plan(4);

-- Inserted out of order and inactive: the list is by id, whatever the insertion order or state.
insert into mdame.dimensions (id, display_name, language, tts_voice, trend_geo, style, active)
values ('aa-first-by-id', 'First By Id', 'en', 'en-US-AriaNeural', 'US', '{}', false);

select is((select array_agg(id order by ordinality) from mdame.get_dimensions() with ordinality),
          (select array_agg(id order by id) from mdame.dimensions), 'without an id every dimension is listed, by id');
select ok((select array['aa-first-by-id', 'sains-singkat', 'tech-explained'] <@ array_agg(id) from mdame.get_dimensions()),
          'the seeded dimensions and an inactive one among them');
select is((select active from mdame.get_dimensions() where id = 'aa-first-by-id'), false, 'an inactive dimension keeps its flag');
select is((select to_jsonb(d) from mdame.get_dimensions() d where id = 'tech-explained'),
          (select to_jsonb(d) from mdame.dimensions d where id = 'tech-explained'),
          'each row is the dimension as stored, every column of its configuration');

select * from finish();
rollback;
