begin;
select plan(3);

select is(mdame.canonical_json('{"b": [1, {"z": "é\n", "a": null}], "a": true, "ab": 1.5}'::jsonb),
          '{"a":true,"ab":1.5,"b":[1,{"a":null,"z":"é\n"}]}', 'keys in code-point order at every depth, arrays in order, no spaces');
select is(mdame.canonical_json('{"B": 1, "a": 2}'::jsonb), '{"B":1,"a":2}', 'upper case sorts before lower case, as in JavaScript');
-- The same value as shared/hashing.ts canonicalJson writes it (tests/unit/hashing.test.ts hashes this text too).
select is(mdame.config_hash('{"language": "ru-RU", "id": "nauka", "style": {"palette": ["#000000"], "motion": "drift"}}'::jsonb),
          encode(sha256(convert_to('{"id":"nauka","language":"ru-RU","style":{"motion":"drift","palette":["#000000"]}}', 'UTF8')), 'hex'),
          'the configuration hash is sha256 of that text');

select * from finish();
rollback;
