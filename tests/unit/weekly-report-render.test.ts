/**
 * The weekly report's renderers without a database: the Markdown (every figure shown, hostile titles
 * inert) and the chart (a PNG that ffprobe decodes at the expected size, with the bars drawn).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mondayOf, type ReportVideo, WeeklyReport } from "../../shared/contracts/weekly-report.ts";
import { axisStep, CHART_HEIGHT, CHART_WIDTH, drawWeeklyChart, renderWeeklyChart } from "../../shared/reports/weekly-chart.ts";
import { escapeMarkdown, renderWeeklyMarkdown } from "../../shared/reports/weekly-markdown.ts";
import { chartPath, parseReport, reportCommand } from "../../cli/commands/report.ts";
import type { ApiClient } from "../../cli/api-client.ts";
import type { CommandContext } from "../../cli/output.ts";

const video = (title: string, over: Partial<ReportVideo> = {}): ReportVideo => ({
  publication_id: "0b5c7c5e-3a3e-4c4e-9f5e-1d2f3a4b5c6d",
  platform: "youtube",
  title,
  url: "https://www.youtube.com/shorts/vidA",
  window_days: 7,
  views: 400,
  engaged_views: 300,
  average_view_duration_s: 31,
  average_view_percentage: 45,
  likes: 30,
  comments: null,
  shares: null,
  ...over,
});

/** A TikTok post's figures: counts only, TikTok reports no watch time. */
const post = (title: string, over: Partial<ReportVideo> = {}): ReportVideo =>
  video(title, {
    platform: "tiktok",
    url: "https://www.tiktok.com/@tech/video/7300000000000000001",
    engaged_views: null,
    average_view_duration_s: null,
    average_view_percentage: null,
    comments: 4,
    shares: 7,
    ...over,
  });

const HOSTILE = "Pwn ](https://evil.example) ![x](https://evil.example/t.png)\n# Heading <script>alert(1)</script> | col | `code` *bold* _i_";

function sample(over: Partial<WeeklyReport> = {}): WeeklyReport {
  return WeeklyReport.parse({
    dimension_id: "tech-explained",
    display_name: "Tech Explained",
    time_zone: "UTC",
    week_start: "2026-11-16",
    week_end: "2026-11-22",
    generated_at: "2026-11-22T21:00:00.000+00:00",
    outcomes: {
      published: 4,
      rejected: 3,
      failed: 1,
      rejected_by_reason: [{ reason: "rejected by the safety classifier", count: 2 }, { reason: "hook audit failed", count: 1 }],
      failed_by_stage: [{ stage: "render", count: 1 }],
    },
    topics_rejected: [{ reason: "near_duplicate", count: 2 }],
    daily: ["16", "17", "18", "19", "20", "21", "22"].map((d, i) => ({
      date: `2026-11-${d}`,
      published: i % 3,
      rejected: i === 2 ? 3 : 0,
      failed: i === 3 ? 1 : 0,
    })),
    stage_latency: [{ stage: "script", samples: 5, p50_s: 180, p95_s: 2940 }, { stage: "render", samples: 2, p50_s: 1350, p95_s: 2295 }],
    cache: {
      scenes: { lookups: 3, hits: 2, hit_rate: 0.6667 },
      llm: { lookups: 4, hits: 1, hit_rate: 0.25 },
      tts: { lookups: 0, hits: 0, hit_rate: null },
    },
    quota: { youtube: [{ bucket: "uploads", used: 3, calls: 3 }, { bucket: "units", used: 51, calls: 2 }], tiktok: [{ call_kind: "video.init", calls: 1 }] },
    videos: {
      count: 3,
      best_engaged: video(HOSTILE),
      worst_engaged: video("B", { engaged_views: 20, views: 900, url: "https://www.youtube.com/shorts/vid)B" }),
      best_retention: video("C", { average_view_percentage: 80 }),
      worst_retention: video(HOSTILE),
      by_platform: [],
    },
    ...over,
  });
}

describe("weekly report Markdown", () => {
  test("shows every figure of the report", () => {
    const md = renderWeeklyMarkdown(sample());
    expect(md).toContain("# Weekly report: Tech Explained (tech\\-explained)");
    expect(md).toContain("- Published: 4");
    expect(md).toContain("- Rejected: 3\n  - rejected by the safety classifier: 2\n  - hook audit failed: 1");
    expect(md).toContain("- Failed: 1\n  - at render: 1");
    expect(md).toContain("| 2026-11-18 | 2 | 3 | 0 |");
    expect(md).toContain("| script | 5 | 3.0 min | 49.0 min |");
    expect(md).toContain("| Scenes | 2 / 3 | 66.7 % |");
    expect(md).toContain("| LLM | 1 / 4 | 25.0 % |");
    expect(md).toContain("| TTS | 0 / 0 | – |");
    expect(md).toContain("- YouTube units: 51 (2 calls)");
    expect(md).toContain("- TikTok video\\.init: 1 calls");
    expect(md).toContain("- Best retention: [C](https://www.youtube.com/shorts/vidA) (youtube, day 7): 300 engaged of 400 views, 80.0 % watched");
  });

  test("the week's review decisions and the rejections' reasons, only when the week had any", () => {
    expect(renderWeeklyMarkdown(sample())).not.toContain("Reviewed");
    const md = renderWeeklyMarkdown(sample({ reviews: { approved: 2, rejected: 3, expired: 1, rejections: [{ reason: "wrong facts", count: 2 }] } }));
    expect(md).toContain("- Reviewed: 2 approved, 3 rejected (1 decided by expiry)\n  - rejected: wrong facts: 2");
  });

  test("a hostile title adds no link, image, heading, HTML or table cell, and stays on its line", () => {
    const md = renderWeeklyMarkdown(sample());
    const line = md.split("\n").find((l) => l.startsWith("- Most engaged views:"))!;
    expect(line).toBeDefined();
    // The only link target on the line is the video's own.
    expect([...line.matchAll(/\]\(/g)].length).toBe(1);
    expect(line).toContain("](https://www.youtube.com/shorts/vidA)");
    const title = line.slice("- Most engaged views: [".length, line.indexOf("](https://www.youtube.com/shorts/vidA)"));
    expect(title).toContain("Pwn");
    expect(title).not.toMatch(/(?<!\\)[[\]()<>|`*_#!]/);
    expect(md).not.toContain("\n# Heading");
    expect(md.split("\n").filter((l) => l.startsWith("# ")).length).toBe(1);
    expect(line).toContain("\\<script\\>");
  });

  test("escapes every Markdown metacharacter, flattens controls and bounds the length", () => {
    expect(escapeMarkdown("a*b_c[d](e)`f`<g>|h#i!j")).toBe("a\\*b\\_c\\[d\\]\\(e\\)\\`f\\`\\<g\\>\\|h\\#i\\!j");
    expect(escapeMarkdown("one\ntwo\r\n\u202ethree")).toBe("one two three");
    expect([...escapeMarkdown("x".repeat(500))].length).toBe(120);
  });

  test("each platform's week: its totals and its most and least viewed video, with the figures the platform reports", () => {
    const md = renderWeeklyMarkdown(sample({
      videos: {
        ...sample().videos,
        by_platform: [
          {
            platform: "tiktok",
            videos: 2,
            views: 1500,
            likes: 90,
            engaged_views: null,
            average_view_percentage: null,
            comments: 11,
            shares: 20,
            most_viewed: post("Big post", { views: 1200 }),
            least_viewed: post("Small post", { views: 300 }),
          },
          {
            platform: "youtube",
            videos: 1,
            views: 400,
            likes: 30,
            engaged_views: 300,
            average_view_percentage: 45,
            comments: null,
            shares: null,
            most_viewed: video("Only video"),
            least_viewed: video("Only video"),
          },
        ],
      },
    }));
    expect(md).toContain("### TikTok\n\n2 videos, 1500 views, 90 likes, 11 comments, 20 shares.");
    expect(md).toContain(
      "- Most viewed: [Big post](https://www.tiktok.com/@tech/video/7300000000000000001) (tiktok, day 7): 1200 views, 30 likes, 4 comments, 7 shares",
    );
    expect(md).toContain("- Least viewed: [Small post]");
    expect(md).toContain("### YouTube\n\n1 video, 400 views, 300 engaged, 45.0 % watched on average, 30 likes.");
    // One video: no least-viewed line that repeats it.
    expect(md.split("### YouTube")[1]).not.toContain("Least viewed");
  });

  test("a TikTok-only week shows its posts' figures and no YouTube ranking", () => {
    const md = renderWeeklyMarkdown(sample({
      videos: {
        count: 1,
        best_engaged: null,
        worst_engaged: null,
        best_retention: null,
        worst_retention: null,
        by_platform: [{
          platform: "tiktok",
          videos: 1,
          views: 800,
          likes: 40,
          engaged_views: null,
          average_view_percentage: null,
          comments: 3,
          shares: 5,
          most_viewed: post("Post"),
          least_viewed: post("Post"),
        }],
      },
    }));
    expect(md).toContain("1 video with analytics this week");
    expect(md).toContain("### TikTok");
    expect(md).not.toContain("Most engaged views");
    expect(md).not.toContain("retention");
  });

  test("a link target that could close the link is encoded; a non-https one is dropped", () => {
    const md = renderWeeklyMarkdown(sample());
    expect(md).toContain("[B](https://www.youtube.com/shorts/vid%29B)");
    const plain = renderWeeklyMarkdown(sample({ videos: { ...sample().videos, best_retention: video("C", { url: "http://example.com/x" }) } }));
    expect(plain).toContain("- Best retention: C (youtube");
  });

  test("an empty week says so instead of showing empty tables", () => {
    const empty = sample({
      outcomes: { published: 0, rejected: 0, failed: 0, rejected_by_reason: [], failed_by_stage: [] },
      topics_rejected: [],
      stage_latency: [],
      quota: { youtube: [], tiktok: [] },
      videos: { count: 0, best_engaged: null, worst_engaged: null, best_retention: null, worst_retention: null, by_platform: [] },
    });
    const md = renderWeeklyMarkdown(empty);
    expect(md).toContain("No stage finished this week.");
    expect(md).toContain("No platform calls this week.");
    expect(md).toContain("No analytics arrived this week.");
  });
});

describe("weekly report chart", () => {
  test("is a PNG that ffprobe decodes at the chart's size", () => {
    const png = renderWeeklyChart(sample());
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const dir = mkdtempSync(join(tmpdir(), "weekly-chart-"));
    try {
      const file = join(dir, "chart.png");
      writeFileSync(file, png);
      const probe = spawnSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file], {
        encoding: "utf8",
      });
      expect(probe.status).toBe(0);
      expect(probe.stdout.trim()).toBe(`png,${CHART_WIDTH},${CHART_HEIGHT}`);
      // A full decode: ffmpeg reads every pixel back; its raw RGB frame has the raster's size.
      const decode = spawnSync("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], { maxBuffer: 8 * 1024 * 1024 });
      expect(decode.status).toBe(0);
      expect(decode.stdout.length).toBe(CHART_WIDTH * CHART_HEIGHT * 3);
      expect(Buffer.compare(decode.stdout, Buffer.from(drawWeeklyChart(sample()).pixels))).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("draws a bar per non-zero figure in the series' colour, none for an empty week", () => {
    const count = (pixels: Uint8Array, rgb: [number, number, number]) => {
      let n = 0;
      for (let i = 0; i < pixels.length; i += 3) if (pixels[i] === rgb[0] && pixels[i + 1] === rgb[1] && pixels[i + 2] === rgb[2]) n++;
      return n;
    };
    const full = drawWeeklyChart(sample()).pixels;
    const legend = 16 * 16;
    expect(count(full, [204, 51, 51])).toBeGreaterThan(legend * 4);
    const none = sample({ daily: sample().daily.map((d) => ({ ...d, published: 0, rejected: 0, failed: 0 })) });
    const empty = drawWeeklyChart(none).pixels;
    expect(count(empty, [46, 139, 87])).toBe(legend);
    expect(count(empty, [204, 51, 51])).toBe(legend);
  });

  test("the count axis keeps to about five gridlines", () => {
    expect([0, 3, 5, 6, 12, 40, 99, 1000].map(axisStep)).toEqual([1, 1, 1, 2, 5, 10, 20, 200]);
  });
});

describe("mdame report arguments", () => {
  test("any date selects its week; a bad date or no date is a usage error", () => {
    expect(mondayOf("2026-11-22")).toBe("2026-11-16");
    expect(mondayOf("2026-11-16")).toBe("2026-11-16");
    expect(parseReport(new Map<string, string | boolean | number>([["week", "2026-11-19"], ["chart", "c.png"]]))).toEqual(
      { name: "report", week: "2026-11-19", dimension: null, chart: "c.png", json: false },
    );
    expect(() => parseReport(new Map([["week", "2026-02-30"]]))).toThrow("--week takes a date YYYY-MM-DD");
    // A week must lie within years 0001..9999: 0000-01-01's Monday is in year -1, 9999-12-31's Sunday in 10000.
    for (const week of ["0000-01-01", "9999-12-31"]) expect(() => parseReport(new Map([["week", week]]))).toThrow("--week");
    expect(parseReport(new Map([["week", "0001-01-03"]])).week).toBe("0001-01-03");
    expect(() => parseReport(new Map())).toThrow("report needs --week");
    expect(() => parseReport(new Map([["week", "2026-11-19"], ["dimension", "Bad Id"]]))).toThrow("not a dimension id");
  });

  test("several charts go to one file each", () => {
    expect(chartPath("out/week.png", "tech", false)).toBe("out/week.png");
    expect(chartPath("out/week.png", "tech", true)).toBe("out/week-tech.png");
    expect(chartPath("out.d/week", "tech", true)).toBe("out.d/week-tech");
  });
});

describe("mdame report on a terminal and through a pipe", () => {
  const markdown = `# Weekly report: Tech Explained (${escapeMarkdown("tech-explained")})\n`;
  const api = { weeklyReports: async () => ({ week_start: "2026-11-30", reports: [{ markdown }] }) } as unknown as ApiClient;
  const run = async (isTTY: boolean) => {
    const chunks: string[] = [];
    const out = { write: (s: string) => chunks.push(s), isTTY, columns: 80 };
    const err = { write: () => {}, isTTY, columns: 80 };
    const code = await reportCommand(
      { name: "report", week: "2026-12-01", dimension: null, chart: null, json: false },
      api,
      { out, err } as unknown as CommandContext,
    );
    return { code, text: chunks.join("") };
  };

  test("a terminal reads the names as they are; a pipe gets the Markdown with its escapes", async () => {
    expect(await run(true)).toEqual({ code: 0, text: "# Weekly report: Tech Explained (tech-explained)\n" });
    expect(await run(false)).toEqual({ code: 0, text: "# Weekly report: Tech Explained (tech\\-explained)\n" });
  });
});
