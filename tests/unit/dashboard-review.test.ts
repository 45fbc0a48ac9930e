/**
 * The dashboard's Review page without a server or a browser (tests/unit/dashboard.test.ts's way):
 * the waiting list, one review with its render, script, scenes and quality gate, every value
 * escaped, and the approve and reject forms: CSRF-checked, same-origin, bounded, checked against
 * the review's limits before the API is called, and calling it once.
 */
import { describe, expect, test } from "bun:test";
import { createDashboardApp } from "../../cli/dashboard/app.ts";
import type { DashboardApi } from "../../cli/dashboard/ops-client.ts";
import { createSessions } from "../../cli/dashboard/sessions.ts";
import type { ApproveReviewBody, Review, ReviewDetail } from "../../shared/contracts/review.ts";

const PORT = 8791;
const HOST = `127.0.0.1:${PORT}`;
const HOSTILE = `<script>alert("x")</script>`;
const UNIT = "2b4d6f80-1a3c-4e5f-8a7b-9c0d1e2f3a4b";
const OURS = { origin: `http://${HOST}`, "sec-fetch-site": "same-origin" };

const waiting: Review = {
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

const detail: ReviewDetail = {
  ...waiting,
  stage: "awaiting_review",
  topic: "Batteries",
  script: { title: `Why batteries age ${HOSTILE}`, description: "Inside a cell.", hook: "Your battery", narration: "Words.", hashtags: ["#tech"] },
  video: {
    video_key: `renders/${UNIT}.mp4`,
    duration_s: 42,
    signed_url: "https://storage.example/renders/x.mp4?token=t",
    signed_url_expires_at: "2026-12-02T10:00:00.000Z",
  },
  quality: {
    passed: true,
    duration_s: 42,
    integrated_lufs: -14,
    true_peak_dbtp: -1.5,
    checks: [{ check: "true_peak", passed: true, value: -1.5, unit: "dBTP", bound: "<= -1", reason: null }],
    failures: [],
  },
  scenes: [{ index: 0, prompt: "a battery", narration: "Your battery", duration_s: 4, backend: "procedural", asset_key: null }],
};

function signedIn() {
  const now = () => Date.parse("2026-12-02T08:00:00Z");
  const sessions = createSessions(now, "the-sign-in-token");
  const calls: string[] = [];
  const api = {
    baseUrl: "http://api.test/functions/v1",
    api: {
      listReviews: async () => ({
        reviews: [{ ...waiting, title: detail.script.title, quality_passed: true }],
      }),
      getReview: async () => detail,
      approveReview: async (id: string, edits: ApproveReviewBody) => {
        calls.push(`approve ${id} ${JSON.stringify(edits)}`);
        return { ...waiting, decision: "approved", decided_by: "operator", decided_at: "2026-12-02T08:00:00.000Z", edits: { title: "old" } };
      },
      rejectReview: async (id: string, reason: string) => {
        calls.push(`reject ${id} ${reason}`);
        return { ...waiting, decision: "rejected", decided_by: "operator", decided_at: "2026-12-02T08:00:00.000Z", reason };
      },
    },
    ops: {},
  } as unknown as DashboardApi;
  const app = createDashboardApp({ api, sessions, port: () => PORT, now });
  const session = sessions.signIn("the-sign-in-token")!;
  const cookie = `mdame_session=${session.id}`;
  const get = (path: string) => app.request(`http://${HOST}${path}`, { headers: { host: HOST, accept: "text/html", cookie } });
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = OURS) =>
    app.request(`http://${HOST}${path}`, {
      method: "POST",
      headers: { host: HOST, accept: "text/html", cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
    });
  return { get, post, calls, csrf: session.csrf };
}

describe("the dashboard's Review page", () => {
  test("lists the waiting videos, each linking to its review, with the title escaped", async () => {
    const { get } = signedIn();
    const page = await (await get("/review")).text();
    expect(page).toContain(`href="/review/${UNIT}"`);
    expect(page).toContain("&lt;script&gt;");
    expect(page).not.toContain(HOSTILE);
    expect(page).toContain('aria-current="page"');
  });

  test("one review plays its render from the signed URL, shows script, scenes and gate, and carries the session's token in both forms", async () => {
    const { get, csrf } = signedIn();
    const response = await get(`/review/${UNIT}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("media-src https://storage.example");
    const page = await response.text();
    expect(page).toContain('<video id="render" controls preload="metadata" width="270" src="https://storage.example/renders/x.mp4?token=t">');
    expect(page).toContain("a battery");
    expect(page).toContain("integrated loudness -14 LUFS");
    expect(page).toContain("<td>true_peak</td>");
    expect(page).not.toContain(HOSTILE);
    expect(page.match(new RegExp(`name="csrf" value="${csrf}"`, "g"))?.length).toBe(3); // approve, reject, sign-out
    expect(page).toContain(`action="/review/${UNIT}/approve"`);
    expect(page).toContain(`action="/review/${UNIT}/reject"`);
    expect(page).toContain('maxlength="90"');
    expect((await get("/review/not-a-unit")).status).toBe(400);
  });

  test("a decision needs the session's token and our origin, is checked against the limits, then calls the API once", async () => {
    const { post, calls, csrf } = signedIn();
    const approve = `/review/${UNIT}/approve`;
    expect((await post(approve, { title: "A good new title", description: "d" })).status).toBe(403);
    expect((await post(approve, { csrf: "forged", title: "A good new title", description: "d" })).status).toBe(403);
    expect((await post(approve, { csrf, title: "A good new title", description: "d" }, { origin: "http://evil.example" })).status).toBe(403);
    expect((await post(approve, { csrf, title: "short", description: "d" })).status).toBe(400);
    expect((await post(approve, { csrf, title: "A good new title", description: "d".repeat(4001) })).status).toBe(400);
    expect((await post(approve, { csrf, title: "A good\nnew title", description: "d" })).status).toBe(400);
    expect((await post(`/review/${UNIT}/reject`, { csrf, reason: "" })).status).toBe(400);
    expect(calls).toEqual([]);

    const approved = await post(approve, { csrf, title: "A good new title", description: "line one\r\nline two" });
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain("queued for publishing");
    const rejected = await post(`/review/${UNIT}/reject`, { csrf, reason: "wrong facts" });
    expect(await rejected.text()).toContain("will not be uploaded");
    expect(calls).toEqual([`approve ${UNIT} {"title":"A good new title","description":"line one\\nline two"}`, `reject ${UNIT} wrong facts`]);
  });
});
