/**
 * `mdame dimension show` prints every field of the contract: the test walks the Zod shape of
 * DimensionConfig (every section, every source kind) and finds each field's name at its depth
 * under its section, so a field added to the contract and left out of the output fails here.
 */
import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import { formatDimension } from "../../cli/commands/dimension.ts";
import { type Dimension, DimensionConfig } from "../../shared/contracts/dimension.ts";

/** Every field path of a schema's input: `publishing.time_zone`, `sources[].subreddit`. */
function contractPaths(schema: z.core.$ZodType, at: string): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case "default":
    case "optional":
    case "nullable":
    case "readonly":
      return contractPaths(def.innerType as z.core.$ZodType, at);
    case "pipe":
      return contractPaths(def.in as z.core.$ZodType, at);
    case "array":
      return contractPaths(def.element as z.core.$ZodType, `${at}[]`);
    case "union":
      return [...new Set((def.options as z.core.$ZodType[]).flatMap((option) => contractPaths(option, at)))];
    case "object":
      return Object.entries(def.shape as Record<string, z.core.$ZodType>).flatMap(([key, field]) => {
        const path = at ? `${at}.${key}` : key;
        return [path, ...contractPaths(field, path)];
      });
    default:
      return [];
  }
}

/** The paths `show` printed: a label's indentation gives its depth, `- k v, k v` lines a list's items. */
function printedPaths(lines: string[]): Set<string> {
  const found = new Set<string>();
  const stack: string[] = [];
  for (const line of lines.slice(1)) {
    const indent = line.length - line.trimStart().length;
    const depth = indent / 2 - 1;
    const text = line.trimStart();
    if (text.startsWith("- ")) {
      const parent = stack.slice(0, depth).join(".");
      for (const pair of text.slice(2).split(", ")) found.add(`${parent}[].${pair.split(" ")[0]}`);
      continue;
    }
    const key = text.split(/\s+/)[0]!;
    stack.length = depth;
    stack.push(key);
    found.add(stack.join("."));
  }
  return found;
}

const everythingSet = DimensionConfig.parse({
  id: "tech-explained",
  display_name: "Tech Explained",
  language: "en",
  tts_voice: "en-US-AriaNeural",
  tts_fallback_voice: "Kore",
  tts_rate: "-10%",
  trend_geo: "US",
  style: { palette: ["#0b132b", "#5bc0be"], motion: "zoom", caption_font: "Noto Sans" },
  visuals: { backends: ["pexels", "procedural"], pexels_blocklist: ["casino"] },
  safety_profile: { blocked_terms: ["weapon"], blocked_categories: ["politics"], strictness: "strict" },
  daily_limit: 2,
  subject: { keywords: ["space"], categories: ["science"], excluded_terms: ["gossip"] },
  sources: [
    { kind: "google_trends", weight: 1, geo: "GB" },
    { kind: "hacker_news", weight: 0.8, list: "best", limit: 20 },
    { kind: "wikipedia", weight: 0.6, project: "en.wikipedia" },
    { kind: "feed", weight: 0.5, url: "https://example.org/feed.xml", private_network: true },
    { kind: "reddit", weight: 0.4, subreddit: "space" },
  ],
  min_score: 0.35,
  llm: { script: [{ provider: "gemini", model: "gemini-2.5-pro" }], critic: [{ provider: "openai-compat", model: "llama3.1:8b" }, { provider: "gemini" }] },
  captions: { profile: "tiktok" },
  music: { library: "music/calm", gain_db: -12 },
  publishing: { time_zone: "Asia/Jakarta", publish_time: "18:00", default_audio_language: "en-US" },
  alerts: { telegram_chat_id: "@mdame_alerts" },
  review: { required: true, expires_after: "12h", on_expiry: "publish" },
  adapt: { daily_volume: { min: 1, max: 3 }, video_length: { target_s: 40 }, topic_categories: { favoured: ["space"] }, pinned: ["video_length"] },
  budget: { daily_usd: 2, monthly_usd: 40 },
});

const stored = (config: z.output<typeof DimensionConfig>): Dimension => ({
  ...config,
  active: true,
  created_at: "2026-11-30T00:00:00.000Z",
  updated_at: "2026-12-01T00:00:00.000Z",
  accounts: 1,
  active_accounts: 1,
});

describe("mdame dimension show", () => {
  const paths = contractPaths(DimensionConfig, "").filter((p) => p !== "id");

  test("the contract walk finds the sections the issue named, and the fields inside them", () => {
    for (
      const path of [
        "subject.keywords",
        "sources[].subreddit",
        "sources[].url",
        "visuals.backends",
        "llm.critic",
        "captions.profile",
        "music.fade_s",
        "min_score",
        "publishing.run_time",
        "adapt.hook_threshold.step",
        "alerts.telegram_chat_id",
        "tts_fallback_voice",
      ]
    ) {
      expect(paths).toContain(path);
    }
  });

  test("every field of the contract is printed, at its depth under its section", () => {
    const lines = formatDimension(stored(everythingSet));
    expect(lines[0]).toBe("dimension tech-explained  active");
    const printed = printedPaths(lines);
    // An LLM route's fields are printed as `provider model` on its task's line.
    const missing = paths.filter((p) => !/^llm\.[a-z]+\[\]/.test(p) && !printed.has(p));
    expect(missing).toEqual([]);
  });

  test("a dimension with every optional section unset still names each section, with what unset means", () => {
    const minimal = DimensionConfig.parse({
      id: "sains-singkat",
      display_name: "Sains Singkat",
      language: "id",
      tts_voice: "id-ID-GadisNeural",
      trend_geo: "ID",
      style: { palette: ["#2d1e2f", "#6a2c70"], motion: "pulse" },
    });
    const lines = formatDimension(stored(minimal));
    const printed = printedPaths(lines);
    for (
      const section of [
        "tts_fallback_voice",
        "music",
        "alerts",
        "llm",
        "llm.script",
        "llm.plan",
        "sources",
        "sources[].geo",
        "subject.keywords",
        "adapt.video_length.target_s",
      ]
    ) {
      expect(printed.has(section)).toBe(true);
    }
    const text = lines.join("\n");
    expect(text).toMatch(/^ {2}music +\(none: voice only\)$/m);
    expect(text).toMatch(/^ {2}alerts +\(none: the environment's chat, TELEGRAM_CHAT_ID\)$/m);
    expect(text).toMatch(/^ {4}- kind google_trends, weight 1, geo \(trend_geo\)$/m);
    expect(text).toMatch(/^ {4}default_audio_language +id \(the dimension's language\)$/m);
    expect(text).toMatch(/^ {4}run_time +06:00 UTC \(no time set\)$/m);
    expect(text).toMatch(/^ {4}script +\(not set: gemini, its default model\)$/m);
  });

  test("values line up, nested sections are indented under their name", () => {
    const text = formatDimension(stored(everythingSet)).join("\n");
    expect(text).toMatch(/^ {2}style\n {4}palette +#0b132b #5bc0be\n {4}motion +zoom\n {4}caption_font +Noto Sans$/m);
    expect(text).toMatch(/^ {2}sources\n {4}- kind google_trends, weight 1, geo GB\n {4}- kind hacker_news, weight 0.8, list best, limit 20$/m);
    expect(text).toMatch(/^ {4}critic +openai-compat llama3\.1:8b > gemini \(its default model\)$/m);
    expect(text).toMatch(/^ {4}run_time +14:00 Asia\/Jakarta \(4 h before publish_time\)$/m);
    expect(text).toMatch(/^ {6}target_s +40$/m);
    expect(text).toMatch(/^ {4}telegram_chat_id +@mdame_alerts$/m);
    const valueColumns = new Set(
      formatDimension(stored(everythingSet)).slice(1).filter((l) => /\S\s{2,}\S/.test(l) && !l.trimStart().startsWith("-")).map((l) =>
        l.search(/(?<=\S\s+)\S/)
      ),
    );
    expect([...valueColumns]).toEqual([32]);
  });
});
