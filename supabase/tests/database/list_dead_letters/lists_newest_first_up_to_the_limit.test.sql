begin;
\ir ../_fixtures.psql
select plan(2);

insert into mdame.dead_letters (queue_name, msg_id, read_ct, payload, last_error)
select 'render', n, 3, jsonb_build_object('n', n), 'error ' || n from generate_series(101, 103) as n;

select is((select count(*) from mdame.list_dead_letters(2)), 2::bigint, 'no more than the limit is listed');
select is(array(select msg_id from mdame.list_dead_letters(2)), array[103, 102]::bigint[], 'the newest dead letters come first');

select * from finish();
rollback;
