/**
 * The ops dashboard without a server or a browser: the one-time sign-in and sessions, the CSRF and
 * same-origin rules, the Host check, escaping of every value, and a page that still renders when
 * the API fails. The app is called through `app.request()` with a fake API (the browser test in
 * tests/integration/dashboard-browser.test.ts runs the real one).
 */
import { describe, expect, test } from "bun:test";
import { mainHelp, parseArgs } from "../../cli/args.ts";
import { createDashboardApp } from "../../cli/dashboard/app.ts";
import { createDashboardApi, type DashboardApi } from "../../cli/dashboard/ops-client.ts";
import { when } from "../../cli/dashboard/layout.ts";
import { safeHttpUrl } from "../../cli/dashboard/pages/videos.ts";
import { contentSecurityPolicy, hostAllowed, sameOriginPost } from "../../cli/dashboard/security.ts";
import { createSessions, sameToken, SESSION_TTL_MS } from "../../cli/dashboard/sessions.ts";
import { CliError, EXIT } from "../../cli/errors.ts";
import type { DeadLetter } from "../../shared/contracts/operator.ts";
import type { OpsVideoDetail } from "../../shared/contracts/ops.ts";
import type { WeeklyReport } from "../../shared/contracts/weekly-report.ts";
import { renderWeeklyChartSvg } from "../../shared/reports/weekly-charts.ts";
import { sample } from "../fixtures/weekly-report.ts";

const PORT = 8790;
const HOST = `127.0.0.1:${PORT}`;
const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)>`;

const deadLetter = (over: Partial<DeadLetter> = {}): DeadLetter => ({
  id: 7,
  queue_name: "stage_tasks",
  msg_id: 41,
  read_ct: 3,
  payload: {},
  last_error: HOSTILE,
  unit_id: null,
  created_at: "2026-12-01T10:00:00Z",
  retried_at: null,
  retried_msg_id: null,
  ...over,
});

function fakeApi(over: { overview?: () => Promise<never>; video?: OpsVideoDetail; reports?: { report: WeeklyReport; markdown: string }[] } = {}) {
  const retried: string[] = [];
  const chartRequests: string[] = [];
  const api = {
    baseUrl: "http://api.test/functions/v1",
    api: {
      weeklyReports: async (week: string, dimension: string | null) => {
        chartRequests.push(`${week} ${dimension}`);
        return { week_start: "2026-11-30", reports: over.reports ?? [] };
      },
      listRuns: async () => ({ runs: [] }),
      listDeadLetters: async () => ({ dead_letters: [deadLetter()] }),
      retryDeadLetter: async (id: string) => {
        retried.push(id);
        return { dead_letter_id: Number(id), queue_name: "stage_tasks", msg_id: 99, unit_id: null, run_id: null };
      },
    },
    ops: {
      overview: over.overview ?? (async () => {
        throw new CliError("cannot reach http://api.test/functions/v1: connection refused", EXIT.unreachable);
      }),
      video: async () => over.video!,
      videos: async () => ({ videos: [] }),
    },
  } as unknown as DashboardApi;
  return { api, retried, chartRequests };
}

function dashboard(over: Parameters<typeof fakeApi>[0] = {}, now = () => Date.parse("2026-12-02T08:00:00Z")) {
  const sessions = createSessions(now, "the-sign-in-token");
  const { api, retried, chartRequests } = fakeApi(over);
  const app = createDashboardApp({ api, sessions, port: () => PORT, now });
  return { app, sessions, retried, chartRequests };
}

const get = (app: ReturnType<typeof dashboard>["app"], path: string, headers: Record<string, string> = {}) =>
  app.request(`http://${HOST}${path}`, { headers: { host: HOST, accept: "text/html", ...headers } });

async function signedIn(over: Parameters<typeof fakeApi>[0] = {}) {
  const d = dashboard(over);
  const response = await get(d.app, "/sign-in?token=the-sign-in-token");
  const cookie = /mdame_session=([^;]+)/.exec(response.headers.get("set-cookie") ?? "")![1]!;
  return { ...d, cookie: `mdame_session=${cookie}`, csrf: d.sessions.find(cookie)!.csrf };
}

describe("sessions", () => {
  test("the sign-in token opens one session, once; a wrong token opens none", () => {
    const sessions = createSessions(() => 0, "token-1");
    expect(sessions.signIn("token-2")).toBeNull();
    expect(sessions.signIn("token-")).toBeNull();
    const session = sessions.signIn("token-1")!;
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.csrf).not.toBe(session.id);
    expect(sessions.signIn("token-1")).toBeNull();
    expect(sessions.signInToken).toBeNull();
    expect(sessions.find(session.id)).toEqual(session);
    expect(sessions.find("not-a-session")).toBeNull();
    expect(sessions.find(undefined)).toBeNull();
  });

  test("a session ends after its time to live", () => {
    let now = 1_000;
    const sessions = createSessions(() => now, "t");
    const session = sessions.signIn("t")!;
    now += SESSION_TTL_MS;
    expect(sessions.find(session.id)).not.toBeNull();
    now += 1;
    expect(sessions.find(session.id)).toBeNull();
  });

  test("sameToken compares whole strings", () => {
    expect(sameToken("abc", "abc")).toBe(true);
    expect(sameToken("abc", "abd")).toBe(false);
    expect(sameToken("abc", "abcd")).toBe(false);
    expect(sameToken("", "abc")).toBe(false);
  });
});

describe("same-origin rules", () => {
  test("only 127.0.0.1:PORT and localhost:PORT are answered", () => {
    expect(hostAllowed(HOST, PORT)).toBe(true);
    expect(hostAllowed(`LOCALHOST:${PORT}`, PORT)).toBe(true);
    expect(hostAllowed("127.0.0.1:9999", PORT)).toBe(false);
    expect(hostAllowed(`evil.example:${PORT}`, PORT)).toBe(false);
    expect(hostAllowed(undefined, PORT)).toBe(false);
  });

  test("a POST must come from our origin, as Origin or Sec-Fetch-Site says", () => {
    expect(sameOriginPost({ origin: `http://${HOST}`, secFetchSite: "same-origin" }, PORT)).toBe(true);
    expect(sameOriginPost({ origin: `http://${HOST}` }, PORT)).toBe(true);
    expect(sameOriginPost({ secFetchSite: "same-origin" }, PORT)).toBe(true);
    // A same-origin form under Referrer-Policy no-referrer sends Origin: null.
    expect(sameOriginPost({ origin: "null", secFetchSite: "same-origin" }, PORT)).toBe(true);
    expect(sameOriginPost({ origin: "null" }, PORT)).toBe(false);
    expect(sameOriginPost({ origin: "null", secFetchSite: "cross-site" }, PORT)).toBe(false);
    expect(sameOriginPost({ origin: "http://evil.example", secFetchSite: "same-origin" }, PORT)).toBe(false);
    expect(sameOriginPost({ origin: `http://${HOST}`, secFetchSite: "same-site" }, PORT)).toBe(false);
    expect(sameOriginPost({}, PORT)).toBe(false);
  });

  test("the CSP runs no script, frames nothing and plays media only from the origins named", () => {
    expect(contentSecurityPolicy()).toContain("default-src 'none'");
    expect(contentSecurityPolicy()).toContain("media-src 'none'");
    expect(contentSecurityPolicy()).toContain("frame-ancestors 'none'");
    expect(contentSecurityPolicy(["http://127.0.0.1:5000"])).toContain("media-src http://127.0.0.1:5000");
    expect(safeHttpUrl("javascript:alert(1)")).toBeNull();
    expect(safeHttpUrl("not a url")).toBeNull();
    expect(safeHttpUrl("https://x.test/a?b=1")).toBe("https://x.test/a?b=1");
  });
});

describe("the app", () => {
  test("another Host is refused before anything else (DNS rebinding)", async () => {
    const { app } = dashboard();
    const response = await get(app, "/sign-in?token=the-sign-in-token", { host: `rebound.example:${PORT}` });
    expect(response.status).toBe(421);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  test("signed out: a 401 page for a browser, 401 JSON for a script, with the security headers", async () => {
    const { app } = dashboard();
    const page = await get(app, "/dead-letters");
    expect(page.status).toBe(401);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).not.toContain(HOSTILE);
    for (const [name, value] of [["referrer-policy", "no-referrer"], ["cache-control", "no-store"], ["x-frame-options", "DENY"]]) {
      expect(page.headers.get(name!)).toBe(value!);
    }
    const json = await get(app, "/queues", { accept: "application/json" });
    expect(json.status).toBe(401);
    expect(await json.json()).toEqual({ error: expect.any(String) });
    const post = await app.request(`http://${HOST}/dead-letters/7/retry`, {
      method: "POST",
      headers: { host: HOST, origin: `http://${HOST}`, "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded" },
      body: "csrf=x",
    });
    expect(post.status).toBe(401);
  });

  test("timestamps read in UTC with their age", async () => {
    const now = Date.parse("2026-12-02T08:00:00Z");
    expect(String(await when("2026-12-02T07:57:00.000Z", now))).toBe(
      '<time datetime="2026-12-02T07:57:00.000Z">2026-12-02 07:57:00 UTC <span class="age">(3m ago)</span></time>',
    );
    expect(String(await when("2026-12-02T10:00:00+02:00", now))).toContain('2026-12-02 08:00:00 UTC <span class="age">(now)</span>');
    expect(String(await when("2026-12-03T08:00:00Z", now))).toContain("(in 24h)");
    expect(String(await when(null, now))).toContain("-");
  });

  test("sign-in: an HttpOnly SameSite=Strict cookie and a 303 to /; the link works once", async () => {
    const { app } = dashboard();
    const first = await get(app, "/sign-in?token=the-sign-in-token");
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/");
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^mdame_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect((await get(app, "/sign-in?token=the-sign-in-token")).status).toBe(401);
    expect((await get(app, "/sign-in")).status).toBe(401);
  });

  test("every value is escaped: a hostile error message is text, not markup", async () => {
    const { app, cookie } = await signedIn();
    const response = await get(app, "/dead-letters", { cookie });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(body).not.toContain("<script");
    expect(body).not.toContain("<img");
  });

  test("controls in what the API answers are shown escaped, as the CLI prints them: a bidi control reorders nothing", async () => {
    const error = "render failed \u202eevil\u202c\nnext line";
    const fetchImpl = async () => Response.json({ dead_letters: [deadLetter({ last_error: error })] });
    const api = createDashboardApi({ baseUrl: "http://api.test/functions/v1", serviceRoleKey: "key", source: "test" }, fetchImpl);
    const now = () => Date.parse("2026-12-02T08:00:00Z");
    const sessions = createSessions(now, "the-sign-in-token");
    const app = createDashboardApp({ api, sessions, port: () => PORT, now });
    const signIn = await get(app, "/sign-in?token=the-sign-in-token");
    const cookie = /mdame_session=([^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")![1]!;
    const body = await (await get(app, "/dead-letters", { cookie: `mdame_session=${cookie}` })).text();
    expect(body).toContain("render failed \\u202eevil\\u202c\\u000anext line");
    expect(body).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  test("a section whose route fails says so plainly and the page still renders", async () => {
    const { app, cookie } = await signedIn();
    const response = await get(app, "/", { cookie });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toContain("Could not load the overview.");
    expect(body).toContain("cannot reach http://api.test/functions/v1: connection refused");
    expect(body).toContain("<nav>");
    expect(body).not.toMatch(/\n\s+at /);
  });

  test("a retry needs the session's CSRF token and our origin; then it calls the API once", async () => {
    const { app, cookie, csrf, retried } = await signedIn();
    const post = (form: Record<string, string>, headers: Record<string, string>) =>
      app.request(`http://${HOST}/dead-letters/7/retry`, {
        method: "POST",
        headers: { host: HOST, accept: "text/html", cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(form).toString(),
      });
    const ours = { origin: `http://${HOST}`, "sec-fetch-site": "same-origin" };
    expect((await post({}, ours)).status).toBe(403);
    expect((await post({ csrf: "forged" }, ours)).status).toBe(403);
    expect((await post({ csrf }, { origin: "http://evil.example", "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ csrf }, {})).status).toBe(403);
    expect((await post({ csrf, pad: "x".repeat(10_000) }, ours)).status).toBe(413);
    expect(retried).toEqual([]);
    const done = await post({ csrf }, ours);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("message 99 queued");
    expect(retried).toEqual(["7"]);

    const confirm = await get(app, "/dead-letters/7/retry", { cookie });
    expect(await confirm.text()).toContain(`name="csrf" value="${csrf}"`);
    expect((await get(app, "/dead-letters/abc/retry", { cookie })).status).toBe(400);
  });

  test("sign-out, with the CSRF token, ends the session at once", async () => {
    const { app, cookie, csrf } = await signedIn();
    const signOut = (form: Record<string, string>) =>
      app.request(`http://${HOST}/sign-out`, {
        method: "POST",
        headers: {
          host: HOST,
          accept: "text/html",
          cookie,
          origin: `http://${HOST}`,
          "sec-fetch-site": "same-origin",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams(form).toString(),
      });
    expect((await signOut({})).status).toBe(403);
    expect((await get(app, "/dead-letters", { cookie })).status).toBe(200);
    const out = await signOut({ csrf });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^mdame_session=; Max-Age=0; Path=\//);
    expect((await get(app, "/dead-letters", { cookie })).status).toBe(401);
  });

  test("a video's player plays only an http(s) signed URL, and the CSP names its origin", async () => {
    const detail = (signedUrl: string) => ({
      video: {
        id: "5b3f8a9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
        unit_id: "5b3f8a9e-1c2d-4e5f-8a9b-0c1d2e3f4a5c",
        run_id: "5b3f8a9e-1c2d-4e5f-8a9b-0c1d2e3f4a5d",
        dimension_id: "tech-explained",
        platform: "youtube",
        channel_handle: "@c",
        external_id: "v1",
        url: "javascript:alert(1)",
        title: HOSTILE,
        status: "published",
        privacy_status: "public",
        deferred_reason: null,
        created_at: "2026-12-01T10:00:00Z",
        published_at: "2026-12-01T11:00:00Z",
      },
      quality: null,
      render: { key: "renders/a.mp4", duration_s: 2, width: 270, height: 480, size_bytes: 1000, signed_url: signedUrl, expires_at: "2026-12-02T09:00:00Z" },
      scenes: [],
      analytics: [],
    } as OpsVideoDetail);
    const good = await signedIn({ video: detail("http://127.0.0.1:5000/storage/v1/object/sign/b/renders/a.mp4?token=t") });
    const response = await get(good.app, "/videos/5b3f8a9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b", { cookie: good.cookie });
    const body = await response.text();
    expect(body).toContain(
      '<video id="render" controls preload="metadata" width="270" src="http://127.0.0.1:5000/storage/v1/object/sign/b/renders/a.mp4?token=t">',
    );
    expect(response.headers.get("content-security-policy")).toContain("media-src http://127.0.0.1:5000;");
    expect(body).not.toContain("javascript:");

    const bad = await signedIn({ video: detail("javascript:alert(1)") });
    const refused = await (await get(bad.app, "/videos/5b3f8a9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b", { cookie: bad.cookie })).text();
    expect(refused).not.toContain("<video");
    expect(refused).not.toContain("javascript:");
  });
});

describe("the analytics page's charts", () => {
  test("shows each active dimension's weekly charts, drawn from the report's figures, in an image the CSP allows", async () => {
    const { app, cookie, chartRequests } = await signedIn({ reports: [{ report: sample(), markdown: "" }] });
    const response = await get(app, "/analytics", { cookie });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(chartRequests).toEqual(["2026-12-02 null"]);
    const image = /<img class="chart" src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)" alt="([^"]*)" width="(\d+)">/.exec(body);
    expect(image).not.toBeNull();
    const svg = Buffer.from(image![1]!, "base64").toString("utf8");
    expect(svg).toBe(await renderWeeklyChartSvg(sample()));
    expect(svg).toContain("Outcomes per day");
    expect(image![2]).toBe("This week&#39;s charts of Tech Explained");
    // The report's hostile titles are text inside the image, never markup of the page.
    expect(body).not.toContain("<script");
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("default-src 'none'");
  });
});

describe("mdame dashboard's arguments", () => {
  test("--port and --no-browser, and the help lists the command", () => {
    expect(parseArgs(["dashboard"])).toEqual({ name: "dashboard", port: 8790, browser: true });
    expect(parseArgs(["dashboard", "--port", "0", "--no-browser"])).toEqual({ name: "dashboard", port: 0, browser: false });
    expect(() => parseArgs(["dashboard", "--port", "70000"])).toThrow("--port takes a whole number from 0 to 65535");
    expect(mainHelp()).toMatch(/^ {2}dashboard\s+serve the ops dashboard/m);
  });
});
