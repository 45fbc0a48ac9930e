/**
 * POST /pipeline/tick checks the deployment's ENV against the environment the database records
 * before it recovers, dead-letters or closes anything: on a mismatch it answers 503 with the
 * reason, as the routes whose RPCs check it do, and the database is left as it was.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ErrorAnswer } from "../../shared/contracts/http-error.ts";
import { TickAnswer } from "../../shared/contracts/operator.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { type InProcessPipeline, startInProcessPipeline } from "../fixtures/in-process-pipeline.ts";

const admin = adminSql();

let deps: InProcessPipeline["deps"];
let app: InProcessPipeline["app"];
let auth: Record<string, string>;
let pipeline: InProcessPipeline;

beforeAll(async () => {
  pipeline = await startInProcessPipeline({ name: "tick-env", env: { ENV: "dev" } });
  ({ app, deps } = pipeline);
  auth = { authorization: pipeline.bearer, "content-type": "application/json" };
}, 60_000);

afterAll(async () => {
  await pipeline?.close();
}, 60_000);

const tick = () => app.request("http://edge.test/pipeline/tick", { method: "POST", headers: auth, body: JSON.stringify({ reason: "poll" }) });

/** A running run with nothing left to do: the next tick that runs closes it. */
async function finishedRun(): Promise<string> {
  const [run] = await admin`
    insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
    values (${`tick-env-${crypto.randomUUID()}`}, 'dev', current_date, 'manual') returning id`;
  return run.id as string;
}

const runStatus = async (id: string) => (await admin`select status from mdame.pipeline_runs where id = ${id}`)[0].status as string;

test("a tick against a database recording another environment is refused with 503 and changes nothing", async () => {
  const runId = await finishedRun();
  await admin`update mdame.settings set value = 'prod' where key = 'env'`;
  try {
    const response = await tick();
    expect(response.status).toBe(503);
    expect(((await response.json()) as ErrorAnswer).error).toBe("ENV=dev but this database is prod");
    expect(await runStatus(runId)).toBe("running");
  } finally {
    await admin`update mdame.settings set value = 'dev' where key = 'env'`;
  }
});

test("a tick against a database that records no environment is refused too", async () => {
  const [saved] = await admin`delete from mdame.settings where key = 'env' returning *`;
  try {
    const response = await tick();
    expect(response.status).toBe(503);
    expect(((await response.json()) as ErrorAnswer).error).toContain("records no environment");
  } finally {
    await admin`insert into mdame.settings ${admin(saved)}`;
  }
});

test("with the environments matching, the tick runs and closes the finished run", async () => {
  const runId = await finishedRun();
  const response = await tick();
  expect(response.status).toBe(200);
  const answer = TickAnswer.parse(await response.json());
  expect(answer.tick.runs_closed).toBeGreaterThanOrEqual(1);
  expect(await runStatus(runId)).toBe("completed");
});
