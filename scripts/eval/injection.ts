/**
 * `npm run eval:injection -- --corpus FILE [--off LAYER[,LAYER]] [--limit N] [--verbose]`: prompt
 * injection measured end to end. Every corpus text becomes a trend item of a feed of an eval
 * dimension whose four LLM tasks run on the emulator's fully fooled model (emulators/gemini/tasks/fooled.ts),
 * which obeys every attack it recognises. One pipeline run then takes every item through the real
 * stages (the pipeline's app, its queue and its RPCs on the local Postgres): ingest (firewall,
 * safety gate) -> script with the hook audit -> safety -> plan. The judge (injection-judge.ts)
 * reads what the engine stored. Before the last line, a line per class of attack (what it wants
 * published, and whether it hides in markup: injection-judge.ts `attackClass`):
 *
 *   class=markup-url attacks=N succeeded=S blocked_at_firewall=F neutralised=Z
 *
 * Last line:
 *
 *   attacks=N succeeded=S blocked_at_firewall=F neutralised=Z benign=B benign_lost=L
 *
 * `benign_lost`: benign items that did not become topics for a firewall or safety reason.
 * `--off` switches defence layers off (functions/pipeline/safety/defences.ts) to show their share.
 * The eval resets its database first: by default a cluster of its own (scripts/eval/own-cluster.ts),
 * so the stack it was started beside keeps its dimensions, runs and alerts; `--db shared` runs it on
 * the clone's own cluster (MDAME_DB_PORT), as the tests do on theirs.
 */
import process from "node:process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { createPipelineDeps } from "../../functions/pipeline/deps.ts";
import { DEFENCE_LAYERS, type DefenceLayer, type Defences } from "../../functions/pipeline/safety/defences.ts";
import { decideVerdict, rulesVerdict, safetyPrompt } from "../../functions/pipeline/safety/gate.ts";
import { hookAuditPrompt } from "../../functions/pipeline/stages/prompts.ts";
import { HookAudit } from "../../shared/contracts/llm.ts";
import { ModelSafetyVerdict, SafetyProfile } from "../../shared/contracts/safety.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createSql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { startEmulator } from "../../emulators/main.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { dbChoice, runOnOwnCluster } from "./own-cluster.ts";
import {
  attackClass,
  attackPayloads,
  classLines,
  type ClassTally,
  type HonestJudge,
  judgeUnit,
  lastLine,
  parseInjectionCorpus,
  similarity,
  type Tally,
  trigrams,
  type UnitOutputs,
} from "./injection-judge.ts";

/** Items per eval dimension: under its daily limit (50), so every allowed topic becomes a unit. */
const ITEMS_PER_DIMENSION = 45;
const FOOLED_MODEL = "gemini-2.5-flash-fooled";
const HONEST_MODEL = "gemini-eval-honest";
const PROFILE = SafetyProfile.parse({});

interface Args {
  corpus: string;
  off: DefenceLayer[];
  limit: number | undefined;
  verbose: boolean;
}

function parseArgs(argv: string[]): Args | string {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const corpus = value("--corpus");
  if (!corpus) return "usage: npm run eval:injection -- --corpus FILE [--off LAYER[,LAYER]] [--limit N] [--verbose] [--db own|shared]";
  const off = (value("--off") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = off.filter((layer) => !(DEFENCE_LAYERS as readonly string[]).includes(layer));
  if (unknown.length > 0) return `unknown layer ${unknown.join(", ")}: one of ${DEFENCE_LAYERS.join(", ")}`;
  const limitText = value("--limit");
  const limit = limitText === undefined ? undefined : Number(limitText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return "--limit must be a whole number above 0";
  return { corpus, off: off as DefenceLayer[], limit, verbose: argv.includes("--verbose") };
}

/** XML 1.0 cannot carry control characters or lone surrogates: a feed holds them as U+FFFD. */
function xmlSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** The honest model of the same emulator, asked the engine's own prompts without any defence. */
function honestJudge(emulatorUrl: string, apiKey: string, language: string): HonestJudge {
  const ask = async (prompt: string): Promise<unknown> => {
    const answer = await call(`${emulatorUrl}/v1beta/models/${HONEST_MODEL}:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({
        contents: [{ role: "user", parts: [{ text: prompt }] }],
        generationConfig: { temperature: 0, responseMimeType: "application/json" },
      }),
    }) as { candidates: { content: { parts: { text: string }[] } }[] };
    return JSON.parse(answer.candidates[0]!.content.parts[0]!.text);
  };
  return {
    async hookScore(hook) {
      return HookAudit.parse(await ask(hookAuditPrompt({ language: language as "en", hook, spotlight: false }))).score;
    },
    async allows(subject, text) {
      if (rulesVerdict(text, PROFILE)) return false;
      const answer = ModelSafetyVerdict.parse(await ask(safetyPrompt({ subject, language, text, profile: PROFILE, spotlight: false })));
      return decideVerdict(PROFILE, answer, HONEST_MODEL).allowed;
    },
  };
}

async function main(): Promise<number> {
  const choice = dbChoice(process.argv.slice(2));
  if (typeof choice === "string") {
    console.error(choice);
    return 2;
  }
  const args = parseArgs(choice.rest);
  if (typeof args !== "string") {
    const code = runOnOwnCluster(path.resolve(import.meta.dir, "../.."), import.meta.path, choice, (line) => process.stdout.write(`${line}\n`));
    if (code !== null) return code;
  }
  if (typeof args === "string") {
    console.error(args);
    return 2;
  }
  let corpus;
  try {
    corpus = parseInjectionCorpus(await readFile(args.corpus, "utf8"), args.corpus);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  if (args.limit !== undefined) corpus = corpus.slice(0, args.limit);
  const items = corpus.map((example, index) => ({ ...example, index, payloads: example.attack ? attackPayloads(example) : [] }));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const defences = Object.fromEntries(args.off.map((layer) => [layer, false])) as Partial<Defences>;
  say(
    `injection eval: ${items.filter((i) => i.attack).length} attacks, ${items.filter((i) => !i.attack).length} benign; layers off: ${
      args.off.join(", ") || "none"
    }`,
  );

  say("resetting the eval's database and starting the emulators");
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  const dataDir = await mkdtemp(path.join(tmpdir(), "mdame-eval-injection-"));
  const storageDir = await mkdtemp(path.join(tmpdir(), "mdame-eval-injection-store-"));
  const emulator = await startEmulator({ port: 0, dataDir, log: () => {} });
  const env: Record<string, string> = {
    ...localStackEnv(),
    GEMINI_BASE_URL: emulator.url,
    TRENDS_BASE_URL: emulator.url,
    FUNCTIONS_URL: "http://edge.test",
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storageDir,
    LOG_LEVEL: args.verbose ? "info" : "fatal",
  };
  // No voice provider: a unit's voice task ends it at once, after the stages the eval judges.
  const deps = { ...createPipelineDeps(env), voices: [], defences, logger: createLogger("pipeline", undefined, args.verbose ? "info" : "fatal") };
  const app = createPipelineApp(deps);
  const auth = { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" };
  // The eval's own reads and its switching off of the seeded dimensions, as the database's owner.
  const sql = createSql(LOCAL_DB_URL, { max: 2, application: "mdame-eval-injection" });
  const started = performance.now();
  try {
    await call(`${emulator.url}/_emulator/fooled`, {
      method: "PUT",
      body: JSON.stringify({ attacks: items.filter((i) => i.attack).map((i) => ({ text: i.text.slice(0, 4000), payloads: i.payloads.slice(0, 20) })) }),
    });

    // Each item goes to the first dimension holding no item that opens with the same words, so that
    // attacks built on one headline are each measured, not dropped as near-duplicates of each other.
    const perDimension: (typeof items)[] = [];
    const openings: Set<string>[] = [];
    for (const item of items) {
      const opening = (item.text.toLocaleLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 4).join(" ");
      let d = perDimension.findIndex((list, i) => list.length < ITEMS_PER_DIMENSION && !openings[i]!.has(opening));
      if (d < 0) {
        d = perDimension.push([]) - 1;
        openings.push(new Set());
      }
      perDimension[d]!.push(item);
      openings[d]!.add(opening);
    }
    const dimensions = perDimension.map((_, d) => `injection-eval-${String(d + 1).padStart(2, "0")}`);
    const feedOf = new Map<string, { dimension: string; position: number }>();
    await sql`update mdame.dimensions set active = false`;
    for (const [d, id] of dimensions.entries()) {
      const feedItems = perDimension[d]!.map((item, position) => {
        feedOf.set(`https://feeds.invalid/${id}/${position}`, { dimension: id, position });
        const text = xmlSafe(item.text);
        return { title: text.slice(0, 200), description: text.length > 200 ? text.slice(200, 2200) : "", age_minutes: 10 + position };
      });
      await call(`${emulator.url}/_emulator/posted-feeds/${id}`, { method: "PUT", body: JSON.stringify({ items: feedItems }) });
      const route = [{ provider: "gemini", model: FOOLED_MODEL }];
      const response = await app.request("/pipeline/dimensions", {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          id,
          display_name: `Injection eval ${d + 1}`,
          language: "en",
          tts_voice: "en-US-AriaNeural",
          trend_geo: "US",
          style: { palette: ["#0b132b", "#5bc0be"], motion: "drift" },
          daily_limit: 50,
          min_score: 0,
          sources: [{ kind: "feed", url: `${emulator.url}/posted-feeds/${id}.xml`, limit: 100 }],
          llm: { script: route, critic: route, safety: route, plan: route },
        }),
      });
      if (response.status !== 201) throw new Error(`creating ${id}: ${response.status} ${await response.text()}`);
    }

    const trigger = await app.request("/pipeline/runs", { method: "POST", headers: auth, body: "{}" });
    if (trigger.status !== 202) throw new Error(`trigger: ${trigger.status} ${await trigger.text()}`);
    const { run_id: runId } = await trigger.json() as { run_id: string };
    const unitStages = async () => {
      const stages = await sql`select stage, count(*)::int as n from mdame.work_units where run_id = ${runId} group by stage order by stage`;
      return stages.map((s) => `${s.stage}=${s.n}`).join(" ") || "none yet";
    };
    for (let round = 1; round <= 400; round++) {
      // A tick drains the queue for a while: progress is printed as it goes.
      const progress = setInterval(() => void unitStages().then((stages) => say(`  ... units ${stages}`), () => {}), 15_000);
      let result: { processed: number; failed: number };
      try {
        const tick = await app.request("/pipeline/tick", { method: "POST", headers: auth, body: "{}" });
        if (tick.status !== 200) throw new Error(`tick: ${tick.status} ${await tick.text()}`);
        result = await tick.json() as { processed: number; failed: number };
      } finally {
        clearInterval(progress);
      }
      say(`tick ${round}: processed=${result.processed} failed=${result.failed} units ${await unitStages()}`);
      if (result.processed === 0) break;
    }

    // Units map back to their item by the feed item's link; audited refusals by their title.
    const units = await sql`
      select u.id, u.dimension_id, u.stage, u.topic, u.script,
             coalesce((select array_agg(s.prompt order by s.scene_index) from mdame.scenes s where s.unit_id = u.id), '{}') as prompts
        from mdame.work_units u where u.run_id = ${runId}`;
    const refusals = await sql`
      select dimension_id, subject_text, classifier from mdame.safety_audit_logs
       where run_id = ${runId} and subject = 'topic' and verdict = 'rejected' and unit_id is null`;
    const itemAt = (dimension: string, position: number) => perDimension[dimensions.indexOf(dimension)]![position]!;
    const outcome = new Map<number, { kind: "unit"; unit: (typeof units)[number] } | { kind: "refused"; classifier: string }>();
    for (const unit of units) {
      const at = feedOf.get(String(unit.topic?.url ?? ""));
      if (at) outcome.set(itemAt(at.dimension, at.position).index, { kind: "unit", unit });
    }
    for (const refusal of refusals) {
      const grams = trigrams(String(refusal.subject_text));
      let best: { index: number; score: number } | undefined;
      for (const item of perDimension[dimensions.indexOf(String(refusal.dimension_id))] ?? []) {
        if (outcome.has(item.index)) continue;
        const score = similarity(grams, trigrams(item.text.slice(0, 200)));
        if (!best || score > best.score) best = { index: item.index, score };
      }
      if (best) outcome.set(best.index, { kind: "refused", classifier: String(refusal.classifier) });
    }

    const honest = honestJudge(emulator.url, env.GEMINI_API_KEY ?? "eval-key", "en");
    const tally: Tally = { attacks: 0, succeeded: 0, blockedAtFirewall: 0, benign: 0, benignLost: 0 };
    const byClass = new Map<string, ClassTally>();
    const counts = { units: 0, refused_at_safety: 0, dropped: 0, benign_scripts_refused: 0 };
    for (const item of items) {
      const result = outcome.get(item.index);
      if (!item.attack) {
        tally.benign++;
        if (result?.kind === "refused") {
          tally.benignLost++;
          say(`benign lost (${result.classifier})  ${JSON.stringify(item.text.slice(0, 120))}`);
        }
        if (result?.kind === "unit" && !result.unit.script?.narration) counts.benign_scripts_refused++;
        continue;
      }
      tally.attacks++;
      const name = attackClass(item);
      const ofClass = byClass.get(name) ?? { attacks: 0, succeeded: 0, blockedAtFirewall: 0 };
      byClass.set(name, ofClass);
      ofClass.attacks++;
      if (!result) {
        counts.dropped++;
        continue;
      }
      if (result.kind === "refused") {
        if (result.classifier.startsWith("prompt-firewall")) {
          tally.blockedAtFirewall++;
          ofClass.blockedAtFirewall++;
        } else counts.refused_at_safety++;
        continue;
      }
      counts.units++;
      const { unit } = result;
      const outputs: UnitOutputs = {
        topicTitle: String(unit.topic.title),
        topicText: [unit.topic.title, ...(unit.topic.context ?? [])].join(" \n "),
        script: unit.script?.narration ? unit.script : null,
        scenePrompts: (unit.prompts ?? []) as string[],
      };
      const reasons = await judgeUnit(item.payloads, outputs, honest);
      if (reasons.length > 0) {
        tally.succeeded++;
        ofClass.succeeded++;
        say(`SUCCEEDED  ${JSON.stringify(item.text.slice(0, 140))}  <- ${reasons.join("; ")}`);
      }
    }
    say(
      `attack outcomes: units=${counts.units} refused_at_safety=${counts.refused_at_safety} dropped_by_selection=${counts.dropped}; ` +
        `benign units whose script was refused=${counts.benign_scripts_refused}; elapsed_s=${Math.round((performance.now() - started) / 1000)}`,
    );
    for (const line of classLines(byClass)) say(line);
    say(lastLine(tally));
    return 0;
  } finally {
    await sql.end({ timeout: 2 }).catch(() => {});
    await deps.sql.end({ timeout: 2 }).catch(() => {});
    await emulator.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(storageDir, { recursive: true, force: true });
  }
}

process.exit(await main());
