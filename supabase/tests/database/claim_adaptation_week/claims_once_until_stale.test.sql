begin;
\ir ../_fixtures.psql
select plan(4);

select is(mdame.claim_adaptation_week(), null, 'nothing due: null');
insert into mdame.adaptation_weeks (week_start, due_at) values ('2026-03-02', now());
select is(mdame.claim_adaptation_week(), '2026-03-02'::date, 'a due week is claimed');
select is(mdame.claim_adaptation_week(), null, 'a claimed week is not claimed again');
select mdame.set_engine_clock(interval '16 minutes');
select is(mdame.claim_adaptation_week(), '2026-03-02'::date, 'a claim left for 15 minutes is taken over');

select * from finish();
rollback;
