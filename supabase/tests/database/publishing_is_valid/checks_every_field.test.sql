begin;
select plan(12);

create temp table good as select '{"category_id": "27", "privacy_status": "public", "time_zone": "Asia/Jakarta", "publish_time": "18:00",
  "run_time": null, "made_for_kids": false, "contains_synthetic_media": true, "default_audio_language": "id"}'::jsonb as p;

select ok(mdame.publishing_is_valid((select p from good)), 'whole settings are valid');
select ok(mdame.publishing_is_valid((select p || '{"publish_time": null, "default_audio_language": null, "privacy_status": "unlisted"}' from good)),
          'times and audio language may be null');
select ok(not mdame.publishing_is_valid((select p - 'run_time' from good)), 'a missing field is refused');
select ok(not mdame.publishing_is_valid((select p || '{"publish_at": "18:00"}' from good)), 'an unknown field is refused');
select ok(not mdame.publishing_is_valid((select p || '{"category_id": 27}' from good)), 'a numeric category id is refused');
select ok(not mdame.publishing_is_valid((select p || '{"privacy_status": "hidden"}' from good)), 'an unknown privacy status is refused');
select ok(not mdame.publishing_is_valid((select p || '{"time_zone": "Mars/Olympus_Mons"}' from good)), 'an unknown time zone is refused');
select ok(not mdame.publishing_is_valid((select p || '{"publish_time": "24:00"}' from good)), 'a time past 23:59 is refused');
select ok(not mdame.publishing_is_valid((select p || '{"run_time": "6:00"}' from good)), 'a time without two-digit hours is refused');
select ok(not mdame.publishing_is_valid((select p || '{"made_for_kids": "no"}' from good)), 'a flag that is not a boolean is refused');
select ok(not mdame.publishing_is_valid((select p || '{"default_audio_language": "english"}' from good)), 'a language that is not a BCP-47 tag is refused');
select throws_ok($$update mdame.dimensions set publishing = publishing || '{"time_zone": "Nowhere/Land"}' where id = 'tech-explained'$$,
                 '23514', null, 'the table refuses what the check refuses');

select * from finish();
rollback;
