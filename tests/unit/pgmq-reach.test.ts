import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { functionsReachingPgmq, pgTapFilesReachingPgmq, tablesTriggeringPgmq, testReachesPgmq } from "../../scripts/sql/pgmq-reach.ts";
import { paths } from "../../stack/paths.ts";

describe("which SQL reaches pgmq", () => {
  const bodies = new Map([
    ["enqueue", "begin perform pgmq.send('q', '{}'::jsonb); end"],
    ["start_run", "begin perform mdame.enqueue(); end"],
    ["start_day", "begin perform start_run (); end"],
    ["run_job", "begin execute format('select %s', v_call); end"],
    ["quota_day", "select (now() at time zone 'America/Los_Angeles')::date"],
    ["enqueue_later", "select 1 -- a name that only begins like enqueue"],
  ]);

  test("a function reaches pgmq through the schema, dynamic SQL, or a call of one that does, however deep", () => {
    expect([...functionsReachingPgmq(bodies)].sort()).toEqual(["enqueue", "run_job", "start_day", "start_run"]);
  });

  test("a test reaches pgmq by naming the schema, calling such a function, or writing a table whose trigger calls one", () => {
    const reach = functionsReachingPgmq(bodies);
    const tables = tablesTriggeringPgmq(
      `create trigger runs_enqueue after insert on mdame.runs
         for each row execute function mdame.start_run();
       create trigger days_stamp before insert on mdame.days for each row execute function mdame.quota_day();`,
      reach,
    );
    expect([...tables]).toEqual(["runs"]);
    expect(testReachesPgmq("select is((select count(*) from pgmq.q_render), 0::bigint);", reach, tables)).toBe(true);
    expect(testReachesPgmq("select mdame.start_day();", reach, tables)).toBe(true);
    expect(testReachesPgmq("insert into mdame.runs default values;", reach, tables)).toBe(true);
    expect(testReachesPgmq("select is(mdame.quota_day(), current_date);", reach, tables)).toBe(false);
    expect(testReachesPgmq("select mdame.enqueue_later(); insert into mdame.days default values;", reach, tables)).toBe(false);
  });

  test("of the project's pgTAP files, those of a queue RPC are chosen and those of a pure function are not", () => {
    const dir = join(paths.root, "supabase", "tests");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".test.sql")).map((f) => relative(paths.root, join(dir, f)));
    const chosen = new Set(pgTapFilesReachingPgmq(paths.root, files));
    const of = (fn: string) => files.filter((f) => f.includes(`/database/${fn}/`));
    expect(of("claim_stage_tasks").length).toBeGreaterThan(0);
    expect(of("claim_stage_tasks").every((f) => chosen.has(f))).toBe(true);
    expect(of("youtube_quota_day").length).toBeGreaterThan(0);
    expect(of("youtube_quota_day").some((f) => chosen.has(f))).toBe(false);
    expect(chosen.size).toBeLessThan(files.length);
  });
});
