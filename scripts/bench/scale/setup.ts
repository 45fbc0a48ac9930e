/**
 * The scale bench's own stack and its dimensions. The stack runs under MDAME_LOCAL_DIR (the entry,
 * scale.ts, sets it and the ports before this module is loaded), from a clean slate: the
 * developer's own database is never touched. Its components are the database, the emulators and
 * the edge host; the media workers run in the bench (media.ts).
 *
 * The dimensions are created through the ops API, as `mdame dimension add` does, and each gets a
 * YouTube account on the emulator (the refresh token the OAuth emulator honours for a channel,
 * emulator-refresh-<channel>, as the tests hand it) through `POST /pipeline/accounts`, which is what
 * `mdame account connect` ends with: a thousand CLI processes would measure Bun's start-up.
 */
import { seededRandom } from "../../soak/plan.ts";
import { postFeed } from "../../soak/processes.ts";
import type { Sql } from "../../../shared/db/client.ts";
import type { ScaleDimension, ScalePlan } from "./plan.ts";

/**
 * Narration bounds: short, so the voice stage stays small, but above the contract's floor (60):
 * at 60-70 words some Russian narrations of the Gemini emulator fell under the script contract's
 * 200 characters and their units failed after the repairs.
 */
const NARRATION = { min: 80, max: 95 } as const;
const API_CONCURRENCY = 8;

/** The bench's dimensions' hook audit pass mark (scaleDimensionConfig says why). */
export const BENCH_HOOK_PASS_MARK = 0.6;

const THINGS = ["currents", "signals", "layers", "patterns", "records", "samples", "tracks", "echoes"];
const FINDINGS = [
  "glow at night",
  "change colour",
  "move faster than expected",
  "keep a hidden record",
  "break an old record",
  "follow a strange rhythm",
  "reshape an old theory",
  "double within weeks",
  "vanish before dawn",
  "split into layers",
];
const SYLLABLES = ["ka", "ro", "vi", "mel", "ta", "na", "sor", "lu", "pe", "dra", "zen", "ba", "tor", "li", "mo", "ven"];

export type Log = (line: string) => void;

/** The configuration `POST /pipeline/dimensions` gets for a planned dimension. */
export function scaleDimensionConfig(d: ScaleDimension, emulatorUrl: string): Record<string, unknown> {
  return {
    id: d.id,
    display_name: d.display_name,
    language: d.language,
    tts_voice: d.tts_voice,
    trend_geo: d.trend_geo,
    style: { palette: ["#102a43", "#243b53", "#f0b429", "#fce588"], motion: "drift", caption_font: "DejaVu Sans" },
    visuals: { backends: ["procedural"], pexels_blocklist: [] },
    daily_limit: 1,
    narration_min_words: NARRATION.min,
    narration_max_words: NARRATION.max,
    subject: { keywords: [d.keyword], categories: [d.keyword], excluded_terms: [] },
    sources: [{ kind: "feed", url: `${emulatorUrl}/posted-feeds/${d.id}.xml`, weight: 1 }],
    min_score: 0.2,
    publishing: { time_zone: d.time_zone, run_time: d.run_time },
    // The hook audit's pass mark, lowered from 0.72 to one that all but the plainest of the emulated
    // model's hook templates reach (a statement with no question, number or "you" scores 0.45): few
    // units then stop at the audit, and nearly every one takes the control plane's longest path, to
    // publish. The audit itself runs as ever, and a unit whose three rounds all fall short is rejected.
    adapt: { hook_threshold: { value: BENCH_HOOK_PASS_MARK, min: 0.5, max: 0.85, step: 0.02 } },
  };
}

/** Two fresh items for a dimension's feed. */
export function feedItems(d: ScaleDimension, seed: number): { title: string; description: string; category: string; age_minutes: number }[] {
  const random = seededRandom(seed ^ Number.parseInt(d.id.replace(/\D/g, "") || "0", 10));
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const site = () => {
    const name = Array.from({ length: 3 }, () => pick(SYLLABLES)).join("");
    return name[0]!.toUpperCase() + name.slice(1);
  };
  return [0, 1].map(() => ({
    title: `How ${d.keyword} ${pick(THINGS)} at ${site()} ${pick(FINDINGS)}`,
    description: `Observers near ${site()} compared ${d.keyword} ${pick(THINGS)} over several weeks and report what they found.`,
    category: d.keyword,
    age_minutes: 30 + Math.floor(random() * 120),
  }));
}

async function api(env: Record<string, string>, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${env.FUNCTIONS_URL}${path}`, {
    method,
    headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/**
 * The seed's dimensions paused, the planned ones created with their feeds and accounts, dated from
 * the engine day's start (so a start time that fell before it is not made up at once), and the
 * YouTube project's buckets sized for the day: the bench measures the control plane, not quota
 * (docs/reference/scale.md says how many Google projects N channels need).
 */
export async function setUpScaleDimensions(sql: Sql, env: Record<string, string>, plan: ScalePlan, log: Log): Promise<void> {
  const listed = await api(env, "GET", "/pipeline/dimensions") as { dimensions: { id: string; active: boolean }[] };
  for (const other of listed.dimensions.filter((d) => d.active)) await api(env, "POST", `/pipeline/dimensions/${other.id}/pause`);
  let done = 0;
  await eachLimited(plan.dimensions, API_CONCURRENCY, async (d) => {
    await postFeed(env, d.id, feedItems(d, plan.seed));
    await api(env, "POST", "/pipeline/dimensions", scaleDimensionConfig(d, env.EMULATOR_URL!));
    const channel = `${d.id}-ch`;
    await api(env, "POST", "/pipeline/accounts", {
      dimension_id: d.id,
      platform: "youtube",
      channel_handle: channel,
      channel_id: null,
      refresh_token: `emulator-refresh-${channel}`,
      oauth_client_id: env.GOOGLE_OAUTH_CLIENT_ID,
    });
    done += 1;
    if (done % 100 === 0) log(`${done}/${plan.dimensions.length} dimensions created and connected`);
  });
  await sql`update mdame.dimensions set created_at = ${plan.day_start}::timestamptz where id like 'scale-%'`;
  const calls = plan.dimensions.length * 4 + 100;
  await sql`update mdame.youtube_projects set upload_calls_per_day = ${calls}, api_units_per_day = ${calls * 100}`;
  log(`${plan.dimensions.length} dimensions created, each with a connected YouTube account; the project's buckets sized to ${calls} uploads a day`);
}
