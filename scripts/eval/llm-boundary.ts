/**
 * `npm run eval:llm-boundary`: replays the malformed-output corpus (tests/fixtures/llm-malformed.jsonl)
 * through the real Gemini client against the emulator and the pipeline's LLM router (cache and
 * boundary included), on the local database, and prints per entry what happened, then
 * `stopped=S/N crashes=C calls=...`. Exits 0 only when every entry was stopped at the boundary as
 * the corpus says (repaired with one extra call, dead-lettered with its issues after two repairs,
 * or a safety stop with no repair) and nothing crashed.
 *
 *   bun scripts/eval/llm-boundary.ts [--verbose]
 */
import process from "node:process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLlmRouter, memoizedProvider } from "../../functions/pipeline/llm-router.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { createGeminiJsonModel } from "../../shared/providers/llm/gemini.ts";
import { startEmulator } from "../../emulators/main.ts";
import * as db from "../../stack/db.ts";
import { EXPECTED_CALLS, loadCorpus, replayEntry, type ReplayResult } from "./llm-boundary-corpus.ts";

/** A model id of the eval's own, so its cache rows are found and removed afterwards. */
const EVAL_MODEL = "gemini-eval-llm-boundary";
const EVAL_DIMENSION = "llm-boundary-eval";

async function main(): Promise<number> {
  const verbose = process.argv.includes("--verbose");
  const corpus = loadCorpus();
  await db.ensureRunning(() => {});
  const dataDir = await mkdtemp(path.join(tmpdir(), "mdame-eval-llm-"));
  const logs: Record<string, unknown>[] = [];
  const emulator = await startEmulator({ port: 0, dataDir, log: (entry) => logs.push(entry) });
  const sql = createSql(LOCAL_DB_URL, { max: 2, application: "mdame-eval-llm-boundary" });
  const started = performance.now();
  try {
    await sql`insert into mdame.dimensions (id, display_name, language, tts_voice, trend_geo, style)
              values (${EVAL_DIMENSION}, 'LLM boundary eval', 'en', 'en-US-AriaNeural', 'US',
                      '{"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}')
              on conflict (id) do nothing`;
    const router = createLlmRouter({
      sql,
      providers: { gemini: memoizedProvider(EVAL_MODEL, (model) => createGeminiJsonModel({ apiKey: "eval-key", baseUrl: emulator.url, model })) },
    });
    const log = createLogger("eval-llm-boundary", undefined, verbose ? "info" : "silent");
    const ctx = {
      router,
      dimensionId: EVAL_DIMENSION,
      log,
      nonce: crypto.randomUUID().slice(0, 8),
      geminiCalls: () => logs.filter((entry) => entry.service === "gemini" && entry.method === "POST").length,
      async armFault(fault: Record<string, unknown>) {
        const response = await fetch(`${emulator.url}/_emulator/faults`, { method: "POST", body: JSON.stringify(fault) });
        if (!response.ok) throw new Error(`arming a fault failed: ${await response.text()}`);
      },
    };
    const results: ReplayResult[] = [];
    for (const entry of corpus) {
      const result = await replayEntry(ctx, entry);
      results.push(result);
      const mark = result.stopped ? "ok  " : "FAIL";
      process.stdout.write(
        `${mark} ${result.id.padEnd(32)} ${result.task.padEnd(10)} ${result.outcome.padEnd(11)} calls=${result.calls}` +
          `${result.detail.length > 0 ? `  ${result.detail[0]!.slice(0, 90)}` : ""}\n`,
      );
    }
    const stopped = results.filter((r) => r.stopped).length;
    const crashes = results.filter((r) => r.outcome === "crash").length;
    const by = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
    const calls = results.reduce((sum, r) => sum + r.calls, 0);
    const overBudget = results.filter((r) => r.calls > EXPECTED_CALLS.still_bad).length;
    process.stdout.write(
      `\nrepaired=${by("repaired")} dead_lettered=${by("dead_letter")} safety_stops=${by("safety_stop")}` +
        ` calls=${calls} (router: ${router.counters.calls} calls, ${router.counters.repairs} repairs) over_budget=${overBudget}` +
        ` elapsed_ms=${Math.round(performance.now() - started)}\n`,
    );
    process.stdout.write(`stopped=${stopped}/${results.length} crashes=${crashes}\n`);
    return stopped === results.length && crashes === 0 ? 0 : 1;
  } finally {
    await sql`delete from mdame.llm_cache where model = ${EVAL_MODEL}`.catch(() => {});
    await sql`delete from mdame.dimensions d where id = ${EVAL_DIMENSION}
               and not exists (select 1 from mdame.work_units u where u.dimension_id = d.id)`.catch(() => {});
    await sql.end({ timeout: 2 });
    await emulator.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

process.exit(await main());
