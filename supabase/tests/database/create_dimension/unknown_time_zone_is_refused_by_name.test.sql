begin;
select plan(3);

select throws_ok(
  $$select mdame.create_dimension('{"id": "zoneless", "display_name": "Z", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US",
      "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"},
      "publishing": {"category_id": "27", "privacy_status": "public", "time_zone": "Mars/Olympus_Mons", "publish_time": null, "run_time": null,
                     "made_for_kids": false, "contains_synthetic_media": true, "default_audio_language": null}}')$$,
  'MDV01', null, 'a zone the server does not know is refused with MDV01');
select is((select count(*) from mdame.dimensions where id = 'zoneless'), 0::bigint, 'nothing is stored');
select lives_ok(
  $$select mdame.create_dimension('{"id": "zoned", "display_name": "Z", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US",
      "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"},
      "publishing": {"category_id": "27", "privacy_status": "public", "time_zone": "Asia/Jakarta", "publish_time": "18:00", "run_time": null,
                     "made_for_kids": false, "contains_synthetic_media": true, "default_audio_language": null}}')$$,
  'a known zone is stored');

select * from finish();
rollback;
