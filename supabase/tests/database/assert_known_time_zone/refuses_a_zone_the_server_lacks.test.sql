begin;
select plan(4);

select lives_ok($$select mdame.assert_known_time_zone('America/New_York')$$, 'an IANA zone passes');
select lives_ok($$select mdame.assert_known_time_zone('UTC')$$, 'UTC passes');
select lives_ok($$select mdame.assert_known_time_zone(null)$$, 'no zone passes');
select throws_ok($$select mdame.assert_known_time_zone('+07:00')$$, 'MDV01', null, 'an offset is not a zone name');

select * from finish();
rollback;
