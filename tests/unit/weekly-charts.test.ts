/**
 * The weekly charts without a database: the SVG vega draws from a report (every series there, hostile
 * titles as text, a panel that says what it lacks) and the PNG resvg makes of it (ffmpeg decodes it
 * at the SVG's size times the scale, and its text is drawn with the shipped font).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHART_PNG_SCALE, chartPng } from "../../shared/reports/chart-png.ts";
import { renderWeeklyChartSvg } from "../../shared/reports/weekly-charts.ts";
import { sample, video } from "../fixtures/weekly-report.ts";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The SVG's declared size. */
function svgSize(svg: string): { width: number; height: number } {
  const match = /^<svg[^>]*\swidth="(\d+)" height="(\d+)"/.exec(svg);
  expect(match).not.toBeNull();
  return { width: Number(match![1]), height: Number(match![2]) };
}

/** ffprobe's codec and size of a PNG, and its pixels as RGB (ffmpeg's full decode). */
function decode(png: Uint8Array): { probe: string; rgb: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), "weekly-charts-"));
  try {
    const file = join(dir, "chart.png");
    writeFileSync(file, png);
    const args = ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file];
    const probe = spawnSync("ffprobe", args, { encoding: "utf8" });
    expect(probe.status).toBe(0);
    const raw = spawnSync("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], { maxBuffer: 64 * 1024 * 1024 });
    expect(raw.status).toBe(0);
    return { probe: probe.stdout.trim(), rgb: raw.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pixels darker than mid-grey: ink. */
function darkPixels(rgb: Buffer): number {
  let n = 0;
  for (let i = 0; i < rgb.length; i += 3) if (rgb[i]! + rgb[i + 1]! + rgb[i + 2]! < 3 * 128) n++;
  return n;
}

/** The week's seven days of spend, the days not named at 0. */
const spendDays = (usd: Record<string, number>) => sample().daily.map((d) => ({ date: d.date, usd: usd[d.date] ?? 0 }));

describe("the weekly charts' SVG", () => {
  test("draws every series: outcomes per day, views and engaged views per video, both retention curves, spend per day", async () => {
    const svg = await renderWeeklyChartSvg(sample({ spend: { ...sample().spend!, daily: spendDays({ "2026-11-16": 1.25, "2026-11-18": 0.4 }) } }));
    for (
      const text of [
        "Outcomes per day",
        "published",
        "rejected",
        "failed",
        "Mon",
        "11-16",
        "Views and engaged views per video",
        "engaged views",
        "1. youtube: Why batteries lie",
        "2. tiktok: GPS in one minute",
        "Retention: the week's best and worst video",
        "best: C",
        "worst: Pwn",
        "Spend per day (USD)",
        "$1.20",
      ]
    ) {
      expect({ text, found: svg.includes(text) }).toEqual({ text, found: true });
    }
    expect(svg).not.toContain("no spend recorded");
  });

  test("a hostile title is text in the SVG, never markup or an attribute", async () => {
    const quoted = { ...sample().videos.each[0]!, title: 'x" onload="alert(1)' };
    const svg = await renderWeeklyChartSvg(sample({ videos: { ...sample().videos, each: [...sample().videos.each, quoted] } }));
    expect(svg).not.toContain("<script");
    expect(svg).toContain("Pwn ](https://evil.example)");
    // Inside a tag the quote is &quot;; between tags it is text.
    expect(svg).not.toMatch(/<[^>]*\sonload="/);
    expect(svg).toContain("x&quot; onload=&quot;alert(1)");
    expect(svg.match(/<svg/g)?.length).toBe(1);
  });

  test("without spend, analytics or retention, each panel says so", async () => {
    const svg = await renderWeeklyChartSvg(
      sample({ spend: undefined, videos: { ...sample().videos, each: [], retention_curves: { best: null, worst: null } } }),
    );
    expect(svg).toContain("no spend recorded");
    // A week whose calls cost nothing (free providers, cached results) draws no bars either.
    expect(await renderWeeklyChartSvg(sample({ spend: { ...sample().spend!, daily: spendDays({}) } }))).toContain("no spend recorded");
    expect(svg).toContain("no analytics this week");
    expect(svg).toContain("no retention curve this week");
    expect(svg).toContain("Outcomes per day");
  });

  test("one video that is both the best and the worst is one curve", async () => {
    const only = video("Only one", { publication_id: "0b5c7c5e-3a3e-4c4e-9f5e-1d2f3a4b5c70" });
    const curve = [{ ratio: 0, watch_ratio: 1 }, { ratio: 1, watch_ratio: 0.5 }];
    const svg = await renderWeeklyChartSvg(
      sample({ videos: { ...sample().videos, best_retention: only, worst_retention: only, retention_curves: { best: curve, worst: curve } } }),
    );
    expect(svg).toContain("best: Only one");
    expect(svg).not.toContain("worst: Only one");
  });
});

describe("the weekly charts' PNG", () => {
  test("is a PNG that ffmpeg decodes at the SVG's size times the scale", async () => {
    const svg = await renderWeeklyChartSvg(sample());
    const png = await chartPng(svg);
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    const { width, height } = svgSize(svg);
    const { probe, rgb } = decode(png);
    const [w, h] = [Math.round(width * CHART_PNG_SCALE), Math.round(height * CHART_PNG_SCALE)];
    expect(probe).toBe(`png,${w},${h}`);
    expect(rgb.length).toBe(w * h * 3);
  });

  test("draws text with the shipped font (resvg has no system fonts)", async () => {
    const text = (body: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="30"><rect width="120" height="30" fill="white"/>${body}</svg>`;
    const blank = decode(await chartPng(text(""))).rgb;
    const written = decode(await chartPng(text('<text x="4" y="22" font-family="DejaVu Sans" font-size="18" fill="black">Views 123</text>'))).rgb;
    expect(darkPixels(blank)).toBe(0);
    expect(darkPixels(written)).toBeGreaterThan(100);
  });
});
