begin;
select plan(4);

select is((select count(*) from mdame.get_dimensions('sains-singkat')), 1::bigint, 'an id returns one dimension');
select is((select row(id, display_name, language)::text from mdame.get_dimensions('sains-singkat')),
          row('sains-singkat', 'Sains Singkat', 'id')::text, 'the one asked for, with its name and language');
select is((select count(*) from mdame.get_dimensions('no-such-dimension')), 0::bigint, 'an unknown id returns nothing');
select is((select count(*) from mdame.get_dimensions('TECH-EXPLAINED')), 0::bigint, 'ids match exactly, not case-insensitively');

select * from finish();
rollback;
