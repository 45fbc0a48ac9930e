begin;
\ir ../_fixtures.psql
select plan(2);

select throws_ok(format('select mdame.complete_visual_job(1, %L, %L, ''scenes/x.mp4'', ''procedural-ffmpeg/1'', false, ''wh-unknown'')',
                        gen_random_uuid(), repeat('a', 64)),
                 'MDN01', null, 'a callback for a scene that does not exist is refused');
select is((select count(*) from mdame.webhook_receipts where webhook_id = 'wh-unknown'), 0::bigint, 'its webhook-id is not spent');

select * from finish();
rollback;
