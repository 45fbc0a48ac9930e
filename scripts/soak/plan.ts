/**
 * Everything the soak does that could differ from one soak to the next, drawn from its seed before
 * the first day: the dimensions (subject, voice, look, daily limit), each day's trend items, and
 * the fault schedule. The same seed gives the same plan, printed at the start and kept in the report.
 */
import { closestTitle } from "../../shared/topics/near-duplicate.ts";

/** A small seeded PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));
function shuffle<T>(random: Random, list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

const SUBJECTS = [
  { name: "ocean", display: "Ocean Minutes", keywords: ["ocean", "reef", "tide", "whale"], things: ["currents", "plankton", "kelp forests", "sea floor"] },
  {
    name: "space",
    display: "Orbit Notes",
    keywords: ["telescope", "galaxy", "orbit", "comet"],
    things: ["dust clouds", "star nurseries", "moons", "radio signals"],
  },
  {
    name: "earth",
    display: "Restless Earth",
    keywords: ["volcano", "glacier", "earthquake", "lava"],
    things: ["fault lines", "ice cores", "magma pockets", "hot springs"],
  },
  {
    name: "birds",
    display: "Wing Report",
    keywords: ["bird", "migration", "owl", "parrot"],
    things: ["flight paths", "feather colours", "nesting sites", "songs"],
  },
  {
    name: "energy",
    display: "Power Basics",
    keywords: ["battery", "solar", "turbine", "grid"],
    things: ["charging cycles", "storage sites", "panel coatings", "heat pumps"],
  },
  {
    name: "robots",
    display: "Robot Desk",
    keywords: ["robot", "drone", "sensor", "automation"],
    things: ["warehouses", "grippers", "farm rows", "repair arms"],
  },
  {
    name: "structures",
    display: "Built To Last",
    keywords: ["bridge", "tunnel", "skyscraper", "concrete"],
    things: ["cables", "foundations", "steel joints", "wind loads"],
  },
  {
    name: "chemistry",
    display: "Small Reactions",
    keywords: ["molecule", "crystal", "catalyst", "polymer"],
    things: ["lab samples", "coatings", "salt layers", "enzymes"],
  },
  {
    name: "weather",
    display: "Sky Watch",
    keywords: ["storm", "cloud", "rainfall", "hurricane"],
    things: ["pressure fronts", "hail", "fog banks", "jet streams"],
  },
  { name: "history", display: "Old Finds", keywords: ["ancient", "pyramid", "manuscript", "archaeology"], things: ["tombs", "coins", "city walls", "pottery"] },
] as const;

const VOICES = [
  "en-US-AriaNeural",
  "en-US-GuyNeural",
  "en-GB-RyanNeural",
  "en-GB-SoniaNeural",
  "en-AU-NatashaNeural",
  "en-CA-ClaraNeural",
  "en-IE-EmilyNeural",
  "en-IN-NeerjaNeural",
];
const GEOS = ["US", "GB", "AU", "CA", "IE", "IN"];
const MOTIONS = ["drift", "pulse", "zoom"] as const;
const PLACES = [
  "Lisbon",
  "Nairobi",
  "Oslo",
  "Lima",
  "Osaka",
  "Perth",
  "Quebec",
  "Cairo",
  "Bergen",
  "Hanoi",
  "Tucson",
  "Galway",
  "Dakar",
  "Tromso",
  "Cusco",
  "Busan",
  "Madeira",
  "Iceland",
  "Patagonia",
  "Borneo",
  "Sahara",
  "Alaska",
  "Tasmania",
  "Greenland",
  "Sicily",
  "Kyoto",
  "Chile",
  "Morocco",
  "Nepal",
  "Fiji",
];
const FINDINGS = [
  "glow at night",
  "change colour",
  "move faster than expected",
  "keep a hidden record",
  "hum at low pitch",
  "break an old record",
  "survive extreme heat",
  "point to a missing piece",
  "follow a strange rhythm",
  "surprise their watchers",
  "reshape an old theory",
  "leave a clear trail",
  "shrink every winter",
  "double within weeks",
  "vanish before dawn",
  "echo across valleys",
  "split into layers",
  "warm unusually early",
  "attract curious visitors",
  "outlast expectations",
  "puzzle local experts",
  "reveal tiny patterns",
  "drift toward coastlines",
  "resist strong winds",
  "store surprising energy",
  "fade under sunlight",
  "pulse during storms",
  "gather in spirals",
  "crack under pressure",
  "recover remarkably quickly",
];
const OPENERS = ["How", "Why", "Watch how", "Look how", "When"];

export interface DimensionPlan {
  id: string;
  display_name: string;
  subject: string;
  keywords: string[];
  tts_voice: string;
  trend_geo: string;
  palette: string[];
  motion: (typeof MOTIONS)[number];
  daily_limit: number;
}

export interface TrendItem {
  title: string;
  description: string;
  category: string;
  age_minutes: number;
}

export const FAULT_KINDS = [
  "kill",
  "pg_restart",
  "llm_outage",
  "llm_rate_limited",
  "llm_slow",
  "llm_malformed",
  "tts_outage",
  "tts_slow",
  "upload_outage",
  "upload_rate_limited",
  "upload_slow",
  "quota_exhausted",
  "db_sick",
  "token_revoked",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export const KILLABLE = ["edge", "gpu-worker", "render-runner", "emulators", "db"] as const;
export type Killable = (typeof KILLABLE)[number];

/** What `POST /_emulator/faults` is sent. */
export interface EmulatorArm {
  service: "gemini" | "gemini-tts" | "edge-tts" | "youtube";
  kind: string;
  count?: number;
  for_ms?: number;
  delay_ms?: number;
}

export interface PlannedFault {
  id: string;
  day: number;
  /** Seconds after the day's trigger. */
  at_s: number;
  kind: FaultKind;
  component?: Killable;
  arms: EmulatorArm[];
  /** How long a fault that lasts a while is done for (db_sick: Postgres refusing connections). */
  for_s?: number;
  /** The dimension whose channel's grant a token_revoked fault revokes. */
  dimension?: string;
  label: string;
}

export interface SoakPlan {
  seed: number;
  days: number;
  dimensions: DimensionPlan[];
  /** Per day, per dimension id: the items its feed serves that day. */
  topics: Record<string, TrendItem[]>[];
  faults: PlannedFault[];
}

function colour(random: Random): string {
  return `#${Math.floor(random() * 0xffffff).toString(16).padStart(6, "0")}`;
}

function planDimensions(random: Random, count: number): DimensionPlan[] {
  const subjects = shuffle(random, [...SUBJECTS]).slice(0, count);
  return subjects.map((subject, i) => ({
    id: `soak-${subject.name}`,
    display_name: subject.display,
    subject: subject.name,
    keywords: [...subject.keywords],
    tts_voice: VOICES[(i + Math.floor(random() * VOICES.length)) % VOICES.length]!,
    trend_geo: pick(random, GEOS),
    palette: [colour(random), colour(random), colour(random), colour(random)],
    motion: MOTIONS[i % MOTIONS.length]!,
    // Mostly one a day: renders are what a simulated day spends its time on.
    daily_limit: random() < 0.3 ? 2 : 1,
  }));
}

const SYLLABLES = ["ka", "ro", "vi", "mel", "ta", "na", "sor", "lu", "pe", "dra", "qui", "zen", "ba", "tor", "li", "mo", "shi", "ven", "ar", "ul"];

/** A made-up place name ("Karovi"), so titles of different days share few words. */
function siteName(random: Random): string {
  const name = Array.from({ length: between(random, 2, 3) }, () => pick(random, SYLLABLES)).join("");
  return name[0]!.toUpperCase() + name.slice(1);
}

/** Items unlike any earlier one of the dimension, so novelty, not repetition, decides what is made. */
function planTopics(random: Random, dimensions: DimensionPlan[], days: number): Record<string, TrendItem[]>[] {
  const seen = new Map<string, string[]>(dimensions.map((d) => [d.id, []]));
  const plan: Record<string, TrendItem[]>[] = [];
  for (let day = 0; day < days; day++) {
    const byDimension: Record<string, TrendItem[]> = {};
    for (const dimension of dimensions) {
      const subject = SUBJECTS.find((s) => s.name === dimension.subject)!;
      const earlier = seen.get(dimension.id)!;
      const items: TrendItem[] = [];
      for (let attempt = 0; items.length < 4 && attempt < 100; attempt++) {
        const title = `${pick(random, OPENERS)} ${pick(random, subject.keywords)} ${pick(random, subject.things)} at ${siteName(random)} ${
          pick(random, FINDINGS)
        }`;
        // The engine drops a title this close to one of the dimension's earlier topics (near-duplicate.ts).
        if ((closestTitle(title, earlier.slice(-40))?.similarity ?? 0) >= 0.45) continue;
        earlier.push(title);
        const thing = pick(random, subject.things);
        items.push({
          title,
          description: `Observers near ${pick(random, PLACES)} compared ${thing} over several weeks and report what they found.`,
          category: subject.name,
          age_minutes: between(random, 10, 240),
        });
      }
      byDimension[dimension.id] = items;
    }
    plan.push(byDimension);
  }
  return plan;
}

/** The emulator faults a kind arms (none for kills and restarts). */
function armsFor(random: Random, kind: FaultKind, daySeconds: number): EmulatorArm[] {
  switch (kind) {
    // Short or long: retries (backoff 1 s on the scaled clock, 3 attempts) outlast some outages, not others.
    case "llm_outage":
      return [{ service: "gemini", kind: "unavailable", for_ms: between(random, 1, 8) * 1000 }];
    case "llm_rate_limited":
      return [{ service: "gemini", kind: "rate_limited", count: between(random, 1, 3) }];
    case "llm_slow":
      return [{ service: "gemini", kind: "slow", delay_ms: between(random, 1500, 4000), for_ms: 20_000 }];
    case "llm_malformed":
      return [{ service: "gemini", kind: "malformed_json", count: between(random, 1, 3) }];
    case "tts_outage":
      return [{ service: "edge-tts", kind: "close_before_turn_end", for_ms: between(random, 10, 25) * 1000 }];
    case "tts_slow":
      return [{ service: "edge-tts", kind: "slow", delay_ms: between(random, 1000, 3000), for_ms: 20_000 }];
    case "upload_outage":
      return [{ service: "youtube", kind: "http_503", for_ms: between(random, 4, 10) * 1000 }];
    case "upload_rate_limited":
      return [{ service: "youtube", kind: "rate_limited", count: between(random, 1, 3) }];
    case "upload_slow":
      return [{ service: "youtube", kind: "slow", delay_ms: between(random, 1000, 3000), for_ms: 30_000 }];
    // The whole day: every upload started that day is refused, as on a day whose quota is spent.
    case "quota_exhausted":
      return [{ service: "youtube", kind: "quota_exceeded", for_ms: daySeconds * 1000 }];
    default:
      return [];
  }
}

function describe(fault: Omit<PlannedFault, "label" | "id">): string {
  if (fault.kind === "kill") return `kill -9 ${fault.component}`;
  if (fault.kind === "pg_restart") return "Postgres fast shutdown + start";
  if (fault.kind === "db_sick") return `Postgres refuses every TCP connection and ends every session for ${fault.for_s} s`;
  if (fault.kind === "token_revoked") {
    return `Google revokes the refresh token of ${fault.dimension}'s channel (the operator reconnects it once the engine reports it)`;
  }
  return fault.arms.map((a) =>
    `${a.service} ${a.kind}${a.count ? ` x${a.count}` : ""}${a.delay_ms ? ` +${a.delay_ms} ms` : ""}${a.for_ms ? ` for ${a.for_ms / 1000} s` : ""}`
  ).join(", ");
}

/**
 * How long the database stays sick: 2–4 minutes of a 15-minute day, the same share of a shorter
 * one (a 300-s day: 40–80 s), never more than 4 minutes.
 */
export function sickWindowRange(daySeconds: number): { min: number; max: number } {
  return { min: Math.min(120, Math.floor((daySeconds * 2) / 15)), max: Math.min(240, Math.floor((daySeconds * 4) / 15)) };
}

/** When the sick window starts and how long it lasts: it ends by the middle of the day, so the day's work can finish after it. */
function planSickWindow(random: Random, daySeconds: number, latest: number): { at_s: number; for_s: number } {
  const { min, max } = sickWindowRange(daySeconds);
  const for_s = between(random, min, max);
  const at_s = between(random, 2, Math.max(2, Math.min(latest, Math.floor(daySeconds / 2) - for_s)));
  return { at_s, for_s };
}

function planFaults(random: Random, days: number, daySeconds: number, dimensionIds: string[]): PlannedFault[] {
  const latest = Math.max(10, Math.min(90, Math.floor(daySeconds / 4)));
  // Every kind at least once, spread over the days; then one or two more a day at random.
  const perDay: FaultKind[][] = Array.from({ length: days }, () => []);
  shuffle(random, [...FAULT_KINDS]).forEach((kind, i) => perDay[i % days]!.push(kind));
  // Day-long and minutes-long faults are not drawn again at random: each would stretch the day.
  // Quota days and revoked grants come back more often than once on a long soak, as on a real channel.
  const extras = FAULT_KINDS.filter((k) => k !== "quota_exhausted" && k !== "db_sick" && k !== "token_revoked");
  for (let day = 0; day < days; day++) {
    for (let n = between(random, 1, 2); n > 0; n--) perDay[day]!.push(pick(random, extras));
    if (days >= 7 && random() < 0.15 && !perDay[day]!.includes("quota_exhausted")) perDay[day]!.push("quota_exhausted");
    if (days >= 7 && random() < 0.1 && !perDay[day]!.includes("token_revoked")) perDay[day]!.push("token_revoked");
    if (days >= 7 && random() < 0.1 && !perDay[day]!.includes("db_sick")) perDay[day]!.push("db_sick");
  }
  const faults: PlannedFault[] = [];
  for (let day = 0; day < days; day++) {
    const today = perDay[day]!.map((kind) => {
      if (kind === "db_sick") return { day, kind, ...planSickWindow(random, daySeconds, latest), arms: [] };
      const component = kind === "kill" ? pick(random, KILLABLE) : undefined;
      const dimension = kind === "token_revoked" ? pick(random, dimensionIds) : undefined;
      // Scripts, safety verdicts, plans and voices are all made in the first seconds of a day: faults
      // of the LLM and the TTS are armed as the day starts; upload faults and kills at any second. A
      // grant is revoked as the day starts too, before the day's first upload asks for a token.
      const early = kind === "quota_exhausted" || kind === "token_revoked" || kind.startsWith("llm_") || kind.startsWith("tts_");
      const at_s = early ? 0 : between(random, 2, latest);
      return { day, at_s, kind, component, dimension, arms: armsFor(random, kind, daySeconds) };
    }).sort((a, b) => a.at_s - b.at_s);
    today.forEach((fault, i) => faults.push({ ...fault, id: `d${day + 1}-f${i + 1}`, label: describe(fault) }));
  }
  return faults;
}

export function makePlan(seed: number, days: number, dimensionCount: number, daySeconds: number): SoakPlan {
  // Separate streams, so changing how topics are drawn leaves the fault schedule of a seed alone.
  const dimensions = planDimensions(seededRandom(seed), dimensionCount);
  return {
    seed,
    days,
    dimensions,
    topics: planTopics(seededRandom(seed ^ 0x5eed), dimensions, days),
    faults: planFaults(seededRandom(seed ^ 0xfa17), days, daySeconds, dimensions.map((d) => d.id)),
  };
}

/** The plan as printed at the start: dimensions, then the fault schedule day by day. */
export function describePlan(plan: SoakPlan): string[] {
  const lines = [`seed ${plan.seed}: ${plan.days} day(s), ${plan.dimensions.length} dimension(s), ${plan.faults.length} fault(s)`];
  for (const d of plan.dimensions) {
    lines.push(`  dimension ${d.id}: ${d.subject}, voice ${d.tts_voice}, ${d.motion} ${d.palette.join(" ")}, daily_limit ${d.daily_limit}`);
  }
  for (const f of plan.faults) {
    lines.push(`  day ${String(f.day + 1).padStart(2)} +${String(f.at_s).padStart(3)}s ${f.id.padEnd(8)} ${f.kind.padEnd(19)} ${f.label}`);
  }
  return lines;
}
