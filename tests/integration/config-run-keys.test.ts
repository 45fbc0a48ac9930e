/**
 * Run keys carry the dimensions' configurations, against the real Postgres and the emulators,
 * in-process: a rerun of the day with the same configuration makes no LLM call at all; a changed
 * configuration starts a run for that dimension only, at once while the first run goes on, which
 * takes topics the first run did not, under the new configuration.
 */
import { describe, expect, test } from "bun:test";
import { splitWords } from "../../shared/text/words.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const admin = adminSql();

const pipeline = withPipeline({ storagePrefix: "mdame-it-runkeys-" });

/** generateContent calls the Gemini emulator has answered, from its request log. */
const geminiCalls = () => pipeline.emulator.logs.filter((entry) => entry.service === "gemini" && String(entry.path).endsWith(":generateContent")).length;

async function trigger(): Promise<{ run_id: string; created: boolean; status: string }> {
  const response = await pipeline.app.request("/pipeline/runs", { method: "POST", headers: pipeline.auth, body: "{}" });
  expect(response.status).toBe(202);
  return response.json() as Promise<{ run_id: string; created: boolean; status: string }>;
}

const drain = () => pipeline.drain(25);

const unitsOf = (runId: string) =>
  admin`select id, dimension_id, stage, topic_fingerprint, script->>'narration' as narration from mdame.work_units where run_id = ${runId} order by dimension_id`;

describe("configuration in the run key", () => {
  let first: { run_id: string };
  let callsAfterFirst = 0;
  let firstUnits: Awaited<ReturnType<typeof unitsOf>>;

  test("the day's first trigger runs every dimension through the LLM stages", async () => {
    const run = await trigger();
    expect(run.created).toBe(true);
    first = run;
    await drain();
    firstUnits = await unitsOf(run.run_id);
    expect(firstUnits.map((u) => u.dimension_id)).toEqual(["sains-singkat", "tech-explained"]);
    expect(firstUnits.every((u) => u.stage === "media")).toBe(true);
    callsAfterFirst = geminiCalls();
    expect(callsAfterFirst).toBeGreaterThan(0);
  }, 180_000);

  test("a rerun the same day with the same configuration is the same run and makes zero LLM calls", async () => {
    const again = await trigger();
    expect(again).toMatchObject({ run_id: first.run_id, created: false });
    await drain();
    expect(geminiCalls()).toBe(callsAfterFirst);
    const [runs] = await admin`select count(*)::int as n from mdame.pipeline_runs`;
    expect(runs.n).toBe(1);
  }, 60_000);

  test("a changed configuration starts a run for that dimension only, at once beside the running one", async () => {
    const patched = await pipeline.app.request("/pipeline/dimensions/sains-singkat", {
      method: "PATCH",
      headers: pipeline.auth,
      body: JSON.stringify({ narration_min_words: 70, narration_max_words: 90 }),
    });
    expect(patched.status).toBe(200);

    const second = await trigger();
    expect(second.created).toBe(true);
    expect(second.run_id).not.toBe(first.run_id);
    const dimensions =
      await admin`select dimension_id, status, config->>'narration_max_words' as max from mdame.run_dimensions where run_id = ${second.run_id}`;
    expect(dimensions.map((d) => ({ ...d }))).toEqual([{ dimension_id: "sains-singkat", status: "ingesting", max: "90" }]);
    // The first run is not disturbed: same units, same stage, and no lock left to wait for.
    expect((await unitsOf(first.run_id)).map((u) => ({ ...u }))).toEqual(firstUnits.map((u) => ({ ...u })));
    expect(await admin`select holder from mdame.system_locks where name = 'pipeline:dev'`).toHaveLength(0);
    // And a repeat of the trigger finds the new run.
    expect(await trigger()).toMatchObject({ run_id: second.run_id, created: false });
    await drain();
    expect((await unitsOf(first.run_id)).map((u) => ({ ...u }))).toEqual(firstUnits.map((u) => ({ ...u })));
    const [started] = await admin`select status from mdame.run_dimensions where run_id = ${second.run_id}`;
    expect(started.status).toBe("ingested");
    const units = await unitsOf(second.run_id);
    expect(units).toHaveLength(1);
    expect(units[0].stage).toBe("media");
    // A topic the first run did not take, written to the new configuration's length.
    const taken = firstUnits.find((u) => u.dimension_id === "sains-singkat")!.topic_fingerprint;
    expect(units[0].topic_fingerprint).not.toBe(taken);
    const words = splitWords(units[0].narration as string, "id").length;
    expect(words).toBeGreaterThanOrEqual(70);
    expect(words).toBeLessThanOrEqual(90);
    expect(geminiCalls()).toBeGreaterThan(callsAfterFirst);
  }, 180_000);
});

describe("the manual trigger's day", () => {
  test("is each dimension's local date, as the scheduled trigger's: a manual and a scheduled trigger of one local day make one day's run", async () => {
    // 12:00 UTC is 02:00 the next day at Kiritimati (UTC+14).
    await admin`update mdame.dimensions set publishing = publishing || '{"time_zone": "Pacific/Kiritimati", "publish_time": "18:00"}' where id = 'tech-explained'`;
    await admin`select mdame.set_engine_clock(timestamptz '2027-01-15T12:00:00Z' - now())`;
    try {
      const response = await pipeline.app.request("/pipeline/runs", {
        method: "POST",
        headers: pipeline.auth,
        body: JSON.stringify({ dimension: "tech-explained" }),
      });
      expect(response.status).toBe(202);
      const { run_id } = (await response.json()) as { run_id: string };
      const [run] = await admin<{ run_date: string }[]>`select run_date::text from mdame.pipeline_runs where id = ${run_id}`;
      expect(run!.run_date).toBe("2027-01-16");
      // Its scheduled start that local day (14:00 at Kiritimati) finds the day started: no second run,
      // so the day's units stay within one daily_limit.
      const [due] = await admin<{ n: number }[]>`select count(*)::int as n from mdame.trigger_due_runs('2027-01-16T04:00:00Z') where created`;
      expect(due!.n).toBe(0);
    } finally {
      await admin`select mdame.set_engine_clock(null)`;
    }
  });
});
