begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.adaptation_weeks (week_start, due_at) values ('2026-03-02', now());
select mdame.claim_adaptation_week();
select isnt((select finished_at from mdame.finish_adaptation_week('2026-03-02')), null, 'finished');
select is(mdame.claim_adaptation_week(), null, 'a finished week is not claimed');
select throws_ok($$select mdame.finish_adaptation_week('2026-01-05')$$, 'MDN01', null, 'an unknown week is refused');

select * from finish();
rollback;
