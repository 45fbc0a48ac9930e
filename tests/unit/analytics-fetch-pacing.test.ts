/**
 * The analytics fetch's outage pacing (exponential with full jitter, 1 min .. 1 h) and what
 * `mdame status` prints of a run's analytics (nothing before the first fetch).
 */
import { expect, test } from "bun:test";
import { formatRunAnalytics } from "../../cli/commands/status.ts";
import { outageDelayS } from "../../shared/backoff.ts";

test("an outage's wait doubles its ceiling per attempt, from a minute up to an hour", () => {
  expect([1, 2, 3, 4, 7, 12].map((n) => outageDelayS(n, () => 0.999999))).toEqual([60, 120, 240, 480, 3600, 3600]);
  for (const n of [1, 5, 12]) expect(outageDelayS(n, () => 0)).toBe(60);
});

test("status prints no analytics section before a fetch, and one row per window after", () => {
  expect(formatRunAnalytics([], Date.now())).toEqual([]);
  const lines = formatRunAnalytics([{
    unit_id: "0b5e2a1c-0000-4000-8000-000000000001",
    publication_id: "0b5e2a1c-0000-4000-8000-000000000002",
    platform: "youtube",
    external_id: "abc123",
    channel_handle: "@demo",
    window_days: 3,
    views: 1234,
    engaged_views: 900,
    average_view_percentage: 61.25,
    average_view_duration_s: 24.6,
    likes: 40,
    comments: null,
    shares: null,
    fetched_at: "2026-12-01T10:00:00.000Z",
  }, {
    unit_id: "0b5e2a1c-0000-4000-8000-000000000003",
    publication_id: "0b5e2a1c-0000-4000-8000-000000000004",
    platform: "tiktok",
    external_id: "7300000000000000001",
    channel_handle: "@demo-tt",
    window_days: 7,
    views: 800,
    engaged_views: null,
    average_view_percentage: null,
    average_view_duration_s: null,
    likes: 30,
    comments: 4,
    shares: 9,
    fetched_at: "2026-12-01T10:00:00.000Z",
  }], Date.parse("2026-12-01T12:00:00Z"));
  expect(lines[0]).toBe("");
  expect(lines[2]).toMatch(/^0b5e2a1c\s+youtube @demo abc123\s+day 3\s+1234\s+900\s+61\.3%\s+25s\s+40\s+-\s+-\s+2h/);
  // A TikTok post: its counts, and a dash for the watch figures TikTok does not report.
  expect(lines[3]).toMatch(/^0b5e2a1c\s+tiktok @demo-tt 7300000000000000001\s+day 7\s+800\s+-\s+-\s+-\s+30\s+4\s+9\s+2h/);
});
