begin;
\ir ../_fixtures.psql
select plan(6);

create temp table s as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.batchGetStats');
select is((select row(bucket, cost)::text from s), row('stats', 1)::text, 'videos.batchGetStats takes one unit of its own bucket');
create temp table t as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'thumbnails.set');
select is((select row(bucket, cost)::text from t), row('units', 50)::text, 'thumbnails.set takes 50 Data API units');

-- A spent stats bucket refuses batchGetStats, and leaves the units to every other call.
update mdame.youtube_projects set stats_units_per_day = 1 where oauth_client_id = 'default';
select throws_ok($$select mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.batchGetStats')$$, 'MDQ02', null,
  'the stats bucket spent refuses the next batchGetStats');
select lives_ok($$select mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.list')$$, 'while the units still pay for videos.list');
select is(mdame.youtube_bucket_size((select p from mdame.youtube_projects p where oauth_client_id = 'default'), 'stats'), 1,
  'the bucket''s size is the project''s stats_units_per_day');
select is((select jsonb_agg(b->>'bucket' order by ord) from jsonb_array_elements(mdame.ops_quota()->'youtube') with ordinality x(b, ord)
            where b->>'oauth_client_id' = 'default'), '["uploads", "units", "stats", "analytics"]'::jsonb, 'the ops quota shows the four buckets');

select * from finish();
rollback;
