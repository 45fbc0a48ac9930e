/**
 * `mdame review`: its command line (a unit's id, the edits and the reason checked against the
 * review's limits before any call) and what it prints, with a stub of the API client.
 */
import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../cli/args.ts";
import type { ApiClient } from "../../cli/api-client.ts";
import { formatReviewDetail, formatReviewList, NO_REASON, reviewCommand } from "../../cli/commands/review.ts";
import { UsageError } from "../../cli/errors.ts";
import type { CommandContext } from "../../cli/output.ts";
import type { Review, ReviewDetail } from "../../shared/contracts/review.ts";

const UNIT = "2b4d6f80-1a3c-4e5f-8a7b-9c0d1e2f3a4b";
const review: Review = {
  unit_id: UNIT,
  run_id: "7f3c2a10-5b6d-4e8f-9a0b-1c2d3e4f5a6b",
  dimension_id: "tech-explained",
  requested_at: "2026-12-02T07:40:00.000Z",
  expires_at: "2026-12-03T07:40:00.000Z",
  on_expiry: "reject",
  decision: null,
  decided_by: null,
  decided_at: null,
  reason: null,
  edits: null,
};

function context() {
  const lines: string[] = [];
  const screen = { write: (text: string) => void lines.push(text), columns: 0, isTTY: false };
  return { ctx: { out: screen, err: screen, now: () => Date.parse("2026-12-02T08:00:00Z") } as unknown as CommandContext, lines };
}

describe("mdame review", () => {
  test("parses list, show, approve with edits and reject with a reason; refuses a bad id and edits past the limits", () => {
    expect(parseArgs(["review", "list", "--json"])).toEqual({ name: "review list", dimension: null, json: true });
    expect(parseArgs(["review", "show", UNIT.toUpperCase()])).toEqual({ name: "review show", unit: UNIT, json: false });
    expect(parseArgs(["review", "approve", UNIT, "--title", "  A better title  "])).toEqual({
      name: "review approve",
      unit: UNIT,
      edits: { title: "A better title" },
      json: false,
    });
    expect(parseArgs(["review", "reject", UNIT, "--reason", "wrong facts"])).toEqual({ name: "review reject", unit: UNIT, reason: "wrong facts", json: false });
    expect(parseArgs(["review", "reject", UNIT])).toMatchObject({ reason: NO_REASON });
    expect(() => parseArgs(["review", "approve", "not-a-unit"])).toThrow(UsageError);
    expect(() => parseArgs(["review", "approve", UNIT, "--title", "short"])).toThrow(/title: must be 8 to 90 characters/);
    expect(() => parseArgs(["review", "approve", UNIT, "--description", "x".repeat(4001)])).toThrow(/description/);
    expect(() => parseArgs(["review", "reject", UNIT, "--reason", "two\nlines"])).toThrow(/reason/);
  });

  test("approve sends the edits and says what happens; reject sends the reason", async () => {
    const calls: unknown[] = [];
    const api = {
      approveReview: async (id: string, edits: unknown) => {
        calls.push(["approve", id, edits]);
        return { ...review, decision: "approved", decided_by: "operator", decided_at: "2026-12-02T08:00:00.000Z", edits: { title: "old" } };
      },
      rejectReview: async (id: string, reason: string) => {
        calls.push(["reject", id, reason]);
        return { ...review, decision: "rejected", decided_by: "operator", decided_at: "2026-12-02T08:00:00.000Z", reason };
      },
    } as unknown as ApiClient;
    const { ctx, lines } = context();
    await reviewCommand({ name: "review approve", unit: UNIT, edits: { title: "A better title" }, json: false }, api, ctx);
    await reviewCommand({ name: "review reject", unit: UNIT, reason: "wrong facts", json: false }, api, ctx);
    expect(calls).toEqual([["approve", UNIT, { title: "A better title" }], ["reject", UNIT, "wrong facts"]]);
    expect(lines.join("")).toContain(`approved unit ${UNIT} with a new title: it is queued for publishing`);
    expect(lines.join("")).toContain(`rejected unit ${UNIT} (wrong facts): it will not be uploaded`);
  });

  test("the list and one review as lines, with the commands that decide it", () => {
    expect(formatReviewList([], 0)).toEqual(["no video waits for review"]);
    const [header, row] = formatReviewList([{ ...review, title: "Why batteries age", quality_passed: true }], Date.parse("2026-12-02T08:00:00Z"));
    expect(header).toMatch(/^unit\s+dimension\s+waiting\s+expires\s+then\s+gate\s+title/);
    expect(row).toContain(UNIT);
    expect(row).toMatch(/tech-explained\s+20m\s+2026-12-03 07:40\s+reject\s+passed\s+Why batteries age/);
    const detail: ReviewDetail = {
      ...review,
      stage: "awaiting_review",
      topic: "Batteries",
      script: { title: "Why batteries age", description: "One\ntwo", hook: "Hook", narration: "Words", hashtags: ["#tech"] },
      video: { video_key: "renders/x.mp4", duration_s: 42, signed_url: null, signed_url_expires_at: null },
      quality: { passed: true },
      scenes: [{ index: 0, prompt: "a battery", narration: "n", duration_s: 4, backend: "procedural", asset_key: null }],
    };
    const lines = formatReviewDetail(detail);
    expect(lines).toContain("description  One / two");
    expect(lines).toContain("quality gate passed");
    expect(lines).toContain(`approve: mdame review approve ${UNIT}`);
  });
});
