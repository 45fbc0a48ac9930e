/**
 * The weekly report's Markdown without a database (every figure shown, hostile titles inert) and
 * `mdame report`'s arguments and output; the charts have tests of their own (weekly-charts.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { mondayOf } from "../../shared/contracts/weekly-report.ts";
import { HOSTILE, post, sample, video } from "../fixtures/weekly-report.ts";
import { escapeMarkdown, renderWeeklyMarkdown } from "../../shared/reports/weekly-markdown.ts";
import { chartPath, parseReport, reportCommand } from "../../cli/commands/report.ts";
import type { ApiClient } from "../../cli/api-client.ts";
import type { CommandContext } from "../../cli/output.ts";

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
    expect(md).toContain(
      "- $0.3200 this week, $0.0800 per published video\n  - gemini\\-image: $0.3120 (8 calls, 0 from cache)\n  - gemini: $0.0080 (30 calls, 6 from cache)",
    );
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
        each: [],
        retention_curves: { best: null, worst: null },
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
      videos: {
        count: 0,
        best_engaged: null,
        worst_engaged: null,
        best_retention: null,
        worst_retention: null,
        by_platform: [],
        each: [],
        retention_curves: { best: null, worst: null },
      },
    });
    const md = renderWeeklyMarkdown(empty);
    expect(md).toContain("No stage finished this week.");
    expect(md).toContain("No platform calls this week.");
    expect(md).toContain("No analytics arrived this week.");
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
