begin;
\ir ../_fixtures.psql
select plan(7);

select mdame.raise_alert('dead_letter', null, 'dlq:render:1', 'a render job was dead-lettered') as first \gset
select is((select count(*)::int from mdame.alerts), 1, 'a raise writes one pending alert');
select is((select status from mdame.alerts where id = :'first'), 'pending', 'the alert waits for the notifier');
select is(mdame.raise_alert('dead_letter', null, 'dlq:render:1', 'again'), :'first'::uuid,
          'the same key within the window is the same alert');
select is((select occurrences from mdame.alerts where id = :'first'), 2, 'and counts one more occurrence');
select isnt(mdame.raise_alert('dead_letter', null, 'dlq:render:2', 'another job'), :'first'::uuid,
            'another key is another alert');
select mdame.set_engine_clock(interval '7 hours');
select isnt(mdame.raise_alert('dead_letter', null, 'dlq:render:1', 'later'), :'first'::uuid,
            'after the window the same key raises a new alert');
select throws_ok($$select mdame.raise_alert('bogus', null, 'k', 'x')$$, '23514', null, 'an unknown kind is refused');

select * from finish();
rollback;
