/**
 * Spend and budgets against the real Postgres and the emulators, in-process (tests/fixtures/pipeline.ts):
 * after a run, `mdame spend --json` counts each provider's paid calls as the emulators answered
 * them; a daily cap that falls in the middle of a unit's script stage defers the unit before its
 * next paid call, whole, and the unit resumes once the budget is raised, paying only for what it
 * had not yet made.
 */
import { describe, expect, test } from "bun:test";
import { main } from "../../cli/main.ts";
import { SpendReport } from "../../shared/contracts/spend.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { withPipeline } from "../fixtures/pipeline.ts";

const admin = adminSql();
const pipeline = withPipeline({ storagePrefix: "mdame-it-spend-" });

/** The emulator's count of answered paid calls, per provider. */
async function emulatorCalls(): Promise<Record<string, number>> {
  return ((await (await fetch(`${pipeline.emulator.url}/_emulator/calls`)).json()) as { calls: Record<string, number> }).calls;
}
const clearEmulatorCalls = () => fetch(`${pipeline.emulator.url}/_emulator/calls`, { method: "DELETE" });

/** `mdame <argv>` in this process, its requests answered by the in-process app. */
async function mdame(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    out: { write: (s: string) => void (out += s) },
    err: { write: (s: string) => void (err += s) },
    env: { FUNCTIONS_URL: "http://edge.test/functions/v1", SERVICE_ROLE_KEY: pipeline.env.SERVICE_ROLE_KEY },
    fetch: async (input: string, init: RequestInit) => {
      const url = new URL(input);
      url.pathname = url.pathname.replace(/^\/functions\/v1/, "");
      return await pipeline.app.fetch(new Request(url.href, init));
    },
  });
  return { code, out, err };
}

/** Paid (not cached) calls per provider in a spend report, over every dimension. */
function paidCalls(report: SpendReport): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const provider of report.dimensions.flatMap((d) => d.providers)) {
    calls[provider.provider] = (calls[provider.provider] ?? 0) + provider.calls - provider.cached_calls;
  }
  return calls;
}

async function spendJson(argv: string[] = []): Promise<SpendReport> {
  const result = await mdame(["spend", "--json", ...argv]);
  expect(result.err).toBe("");
  expect(result.code).toBe(0);
  return SpendReport.parse(JSON.parse(result.out));
}

describe("spend", () => {
  test("after a run, mdame spend --json gives each dimension's cost by provider, matching the calls the emulators answered", async () => {
    await clearEmulatorCalls();
    const trigger = await pipeline.app.request("/pipeline/runs", { method: "POST", headers: pipeline.auth, body: "{}" });
    expect(trigger.status).toBe(202);
    await pipeline.drain(30);

    const report = await spendJson();
    const counted = await emulatorCalls();
    expect(counted.gemini).toBeGreaterThan(0);
    expect(counted["edge-tts"]).toBeGreaterThan(0);
    expect(paidCalls(report)).toEqual(counted);
    const dimensions = (await admin`select id from mdame.dimensions where active order by id`).map((d) => d.id);
    expect(report.dimensions.map((d) => d.dimension_id).sort()).toEqual(dimensions);
    for (const dimension of report.dimensions) {
      const byProvider = Object.fromEntries(dimension.providers.map((p) => [p.provider, p]));
      expect(byProvider.gemini!.usd).toBeGreaterThan(0);
      // Edge TTS is free, and still counted in characters.
      expect(byProvider["edge-tts"]!.usd).toBe(0);
      expect(byProvider["edge-tts"]!.lines[0]!.quantity).toBeGreaterThan(0);
    }
    expect(report.usd).toBeCloseTo(report.dimensions.reduce((sum, d) => sum + d.usd, 0), 10);
  }, 240_000);

  test("a cap falling mid-unit defers the unit before its next paid call; it resumes whole once the budget is raised", async () => {
    // Output tokens carry the price: every call fits an estimate of 2048 of them, and the cap leaves
    // room for one call and less than a second.
    const price = 0.001;
    const put = (body: object) => pipeline.app.request("/pipeline/prices", { method: "PUT", headers: pipeline.auth, body: JSON.stringify(body) });
    expect((await put({ provider: "gemini", kind: "input_tokens", usd_per_unit: 0 })).status).toBe(200);
    expect((await put({ provider: "gemini", kind: "output_tokens", usd_per_unit: price })).status).toBe(200);
    const [{ spent }] = await admin`select spent_today::float8 as spent from mdame.spend_budget_state('tech-explained')`;
    const cap = Number((spent + 2150 * price).toFixed(6));
    const set = await pipeline.app.request("/pipeline/dimensions/tech-explained", {
      method: "PATCH",
      headers: pipeline.auth,
      body: JSON.stringify({ budget: { daily_usd: cap } }),
    });
    expect(set.status).toBe(200);

    const [run] = await admin`select id from mdame.pipeline_runs order by created_at desc limit 1`;
    const [unit] = await admin`
      insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
      values (${run.id}, 'tech-explained', 'it-budget-unit', 'it-budget-fp', '{"title": "How noise-cancelling headphones work"}')
      returning id`;
    await admin`select mdame.enqueue_stage_task('script', ${run.id}, ${unit.id})`;
    await clearEmulatorCalls();
    await pipeline.drain(5);

    const [deferred] = await admin`select stage, script from mdame.work_units where id = ${unit.id}`;
    expect(deferred).toEqual({ stage: "script", script: null });
    const [message] = await admin`select read_ct, vt > now() + interval '1 minute' as hidden from pgmq.q_stage_tasks where message->>'unit_id' = ${unit.id}`;
    expect(message).toEqual({ read_ct: 0, hidden: true });
    const recorded = await admin`select count(distinct call_key)::int as n from mdame.provider_usage where unit_id = ${unit.id} and not cached`;
    // Mid-unit: the stage paid for at least one call, and the call it was deferred before was never made.
    expect(recorded[0].n).toBeGreaterThanOrEqual(1);
    expect((await emulatorCalls()).gemini).toBe(recorded[0].n);
    const [{ today }] = await admin`select spent_today::float8 as today from mdame.spend_budget_state('tech-explained')`;
    expect(today).toBeLessThanOrEqual(cap);
    expect(await admin`select 1 from mdame.events where unit_id = ${unit.id} and kind = 'budget_deferred'`).toHaveLength(1);
    expect(await admin`select 1 from mdame.alerts where kind = 'spend_budget' and dimension_id = 'tech-explained' and details->>'threshold' = '100'`)
      .toHaveLength(1);

    const raised = await pipeline.app.request("/pipeline/dimensions/tech-explained", {
      method: "PATCH",
      headers: pipeline.auth,
      body: JSON.stringify({ budget: null }),
    });
    expect(raised.status).toBe(200);
    // The recheck comes (at most 15 minutes later): the message is visible again.
    await admin`update pgmq.q_stage_tasks set vt = now() where message->>'unit_id' = ${unit.id}`;
    await pipeline.drain(10);
    const [resumed] = await admin`select stage, script is not null as scripted from mdame.work_units where id = ${unit.id}`;
    expect(resumed.scripted).toBe(true);
    expect(resumed.stage).not.toBe("failed");
    // What it had paid for before the deferral came from the cache, at cost 0.
    const cached = await admin`select count(*)::int as n, coalesce(sum(usd), 0)::float8 as usd from mdame.provider_usage where unit_id = ${unit.id} and cached`;
    expect(cached[0].n).toBeGreaterThanOrEqual(1);
    expect(cached[0].usd).toBe(0);

    const reset = await pipeline.app.request("/pipeline/prices/reset", {
      method: "POST",
      headers: pipeline.auth,
      body: JSON.stringify({ provider: "gemini", kind: "output_tokens" }),
    });
    expect(reset.status).toBe(200);
  }, 240_000);

  test("bad filters and prices are 400s naming the problem", async () => {
    expect((await mdame(["spend", "--month", "2026-13"])).code).toBe(2);
    const month = await pipeline.app.request("/pipeline/spend?month=December", { headers: pipeline.auth });
    expect(month.status).toBe(400);
    const kind = await pipeline.app.request("/pipeline/prices", {
      method: "PUT",
      headers: pipeline.auth,
      body: JSON.stringify({ provider: "gemini", kind: "lunches", usd_per_unit: 1 }),
    });
    expect(kind.status).toBe(400);
    const unknown = await pipeline.app.request("/pipeline/prices/reset", {
      method: "POST",
      headers: pipeline.auth,
      body: JSON.stringify({ provider: "nobody", kind: "images" }),
    });
    expect(unknown.status).toBe(404);
  });
});
