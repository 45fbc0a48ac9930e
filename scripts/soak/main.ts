/**
 * `npm run soak -- --days N --dimensions D --seed S`: N simulated days on an accelerated clock with
 * the engine's real processes (Postgres, the edge host, both Bun workers, the emulators) under the
 * supervisor, and faults drawn from the seed (docs/guides/soak.md). Ends with out/soak/report.md and
 * report.json and, as the last line of stdout:
 *
 *   days=N runs=R published=P rejected=J failed=F deferred=Q duplicates=0 stuck=0 lost=0
 *
 * Exit code 1 when a failure has no injected fault to explain it, a publication failed for quota,
 * a cap or a refused grant instead of waiting, a deferral waits with no reason, duplicates/stuck/lost
 * > 0, or the engine logged more than the ceiling while the database was sick; 2 on bad arguments; 3 when interrupted (SIGINT/SIGTERM: the current day runs to its end, no
 * other starts, and the report covers the days run, `days=` counting them).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { paths } from "../../stack/paths.ts";
import { UsageError } from "../script-args.ts";
import { parseSoakArgs, USAGE } from "./args.ts";
import { restoreHealthyDatabase, restoreOnExit } from "./db-fault.ts";
import { driveDays, withDb } from "./driver.ts";
import { emulatorLogOffset, observedEffects, restartsSoFar } from "./evidence.ts";
import { describePlan, makePlan } from "./plan.ts";
import { adminSql, cleanSlate, scaleStagePolicies, setUpDimensions, stackEnv, startSoakStack } from "./processes.ts";
import { buildReport, sickDatabaseSummary, summaryLine, writeReport } from "./report.ts";

const t0 = Date.now();
const say = (line: string) => console.log(`[soak ${((Date.now() - t0) / 1000).toFixed(0).padStart(5)}s] ${line}`);

async function main(): Promise<number> {
  let options;
  try {
    options = parseSoakArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`soak: ${error.message}\n${USAGE}`);
    return 2;
  }
  const outDir = resolve(paths.root, options.outDir);
  mkdirSync(outDir, { recursive: true });
  const plan = makePlan(options.seed, options.days, options.dimensions, options.daySeconds);
  for (const line of describePlan(plan)) say(line);
  writeFileSync(join(outDir, "plan.json"), `${JSON.stringify(plan, null, 2)}\n`);

  // A soak that died while the database was sick left it refusing connections: undone first.
  if (await restoreHealthyDatabase()) say("the database was left sick by an earlier soak: its pg_hba.conf is restored");
  restoreOnExit(say);
  say("clean slate: database reset, empty storage and emulators");
  await cleanSlate(say);
  const emulatorOffset = emulatorLogOffset();
  say("starting the supervised stack");
  const stack = await startSoakStack();
  const sql = adminSql();
  try {
    const env = stackEnv();
    const policies = await scaleStagePolicies(sql);
    say(
      `stage policies scaled: ${
        policies.map((p) => `${p.stage} vt ${p.visibility_timeout_s}s backoff ${p.retry_backoff_s}s deadline ${p.deadline_s}s`).join("; ")
      }`,
    );
    await setUpDimensions(env, plan.dimensions, join(outDir, "dimensions"), say);
    const startDate = new Date().toISOString().slice(0, 10);
    let interrupted = false;
    const onSignal = (signal: string) => {
      if (!interrupted) say(`${signal}: no new day starts after this one (a sick database is made healthy at once); the report covers the days run`);
      interrupted = true;
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    const drive = await driveDays({ sql, env, plan, daySeconds: options.daySeconds, startDate, log: say, interrupted: () => interrupted });
    const effects = observedEffects(emulatorOffset, restartsSoFar());
    const report = await withDb(
      "the report",
      () => buildReport(sql, env, plan, drive, { wall_s: Math.round((Date.now() - t0) / 1000), load_average: loadavg(), stage_policies: policies, effects }),
    );
    writeReport(outDir, report);
    say(`report: ${join(options.outDir, "report.md")}, ${join(options.outDir, "report.json")}`);
    for (const f of report.unexplained) say(`UNEXPLAINED failure: day ${f.day} ${f.kind} ${f.dimension_id} (${f.stage}): ${f.error}`);
    for (const line of [...report.duplicates, ...report.stuck, ...report.lost, ...report.publish_refusal_failures, ...report.deferred_unnamed]) {
      say(`BROKEN: ${line}`);
    }
    for (const line of sickDatabaseSummary(report)) say(line.replaceAll("**", ""));
    for (const line of report.log_floods) say(`LOG FLOOD: ${line}`);
    const t = report.totals;
    const ok = report.unexplained.length === 0 && t.duplicates === 0 && t.stuck === 0 && t.lost === 0 && report.log_floods.length === 0 &&
      report.publish_refusal_failures.length === 0 && report.deferred_unnamed.length === 0;
    if (interrupted) say(`interrupted after ${drive.days.length} of ${plan.days} day(s)`);
    console.log(summaryLine(report));
    return !ok ? 1 : interrupted ? 3 : 0;
  } finally {
    // The local database goes back to the real clock for whatever runs on it next.
    await sql`select mdame.set_engine_clock(null)`.catch(() => {});
    await sql.end({ timeout: 2 }).catch(() => {});
    await stack.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`[soak] failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    process.exit(1);
  },
);
