/**
 * The dashboard's Hono app: sign-in, the session gate, the pages and the actions (retry a dead
 * letter, run a schedule now, each behind a confirmation page; approve or reject a video waiting for
 * review, from its page), each form carrying the session's CSRF token. Served by server.ts on
 * 127.0.0.1; tests call `app.request()` directly.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { describeIssues } from "../../shared/contracts/dimension.ts";
import { OpsScheduleName } from "../../shared/contracts/ops.ts";
import { ApproveReviewBody, RejectReviewBody } from "../../shared/contracts/review.ts";
import { type Html, layout, messagePage, sectionError } from "./layout.ts";
import type { DashboardApi } from "./ops-client.ts";
import { analyticsPage } from "./pages/analytics.ts";
import { confirmRetry, deadLettersPage, retried } from "./pages/dead-letters.ts";
import { overviewPage } from "./pages/overview.ts";
import { queuesPage } from "./pages/queues.ts";
import { quotaPage } from "./pages/quota.ts";
import { decided, reviewPage, reviewsPage } from "./pages/review.ts";
import { confirmRunNow, ranNow, schedulesPage } from "./pages/schedules.ts";
import { spendPage } from "./pages/spend.ts";
import { videoPage, videosPage } from "./pages/videos.ts";
import { hostAllowed, sameOriginPost, securityHeaders } from "./security.ts";
import { sameToken, type Session, SESSION_COOKIE, type Sessions } from "./sessions.ts";
import { STYLE_CSS } from "./style.ts";

interface DashboardAppOptions {
  api: DashboardApi;
  sessions: Sessions;
  /** The port the server listens on (known once it is bound). */
  port: () => number;
  now?: () => number;
}

type DashboardEnv = { Variables: { session: Session; mediaOrigins: string[] } };

const DEAD_LETTER_ID = /^[1-9][0-9]{0,17}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A form of the dashboard holds one token; anything larger is not one of ours. */
const MAX_FORM_BYTES = 4096;
/** The approve form of a review also holds a title and a description (4,000 characters, percent-encoded). */
const MAX_REVIEW_FORM_BYTES = 64 * 1024;

function wantsHtml(c: Context): boolean {
  const accept = c.req.header("accept") ?? "";
  return accept === "" || accept.includes("text/html") || (accept.includes("*/*") && !accept.includes("application/json"));
}

/** A refusal: a page for a browser, JSON for anything else. */
function refuse(c: Context, status: 400 | 401 | 403 | 404 | 413 | 421, title: string, message: string, hint?: string) {
  if (!wantsHtml(c)) return c.json({ error: message }, status);
  return c.html(messagePage(title, message, hint), status);
}

export function createDashboardApp(options: DashboardAppOptions) {
  const { api, sessions } = options;
  const now = options.now ?? Date.now;
  const app = new Hono<DashboardEnv>();
  const page = (c: Context<DashboardEnv>, title: string, active: string | null, body: Html, status: 200 | 502 = 200) =>
    c.html(layout({ title, active, apiUrl: api.baseUrl, csrf: c.get("session").csrf }, body), status);

  app.use(async (c, next) => {
    c.set("mediaOrigins", []);
    if (!hostAllowed(c.req.header("host"), options.port())) {
      c.res = c.text("This dashboard answers only on 127.0.0.1 and localhost.", 421);
    } else {
      await next();
    }
    for (const [name, value] of Object.entries(securityHeaders(c.get("mediaOrigins")))) c.res.headers.set(name, value);
  });

  app.get("/style.css", (c) => c.body(STYLE_CSS, 200, { "content-type": "text/css; charset=utf-8" }));

  app.get("/sign-in", (c) => {
    const token = c.req.query("token") ?? "";
    const session = token === "" ? null : sessions.signIn(token);
    if (!session) {
      return refuse(
        c,
        401,
        "Sign-in refused",
        "This sign-in link is not valid, or it was used already: each link works once.",
        "Restart `mdame dashboard` for a new link.",
      );
    }
    // A browser-session cookie (no Max-Age): the browser forgets it when closed; the server ends it after SESSION_TTL_MS.
    setCookie(c, SESSION_COOKIE, session.id, { httpOnly: true, sameSite: "Strict", path: "/" });
    // 303 to a URL without the token, so it stays in neither the address bar nor the next page's referrer.
    return c.redirect("/", 303);
  });

  app.use(async (c, next) => {
    const session = sessions.find(getCookie(c, SESSION_COOKIE));
    if (!session) {
      return refuse(c, 401, "Signed out", "Sign in with the link `mdame dashboard` printed (it works once).", "Restart `mdame dashboard` for a new link.");
    }
    c.set("session", session);
    await next();
  });

  /** POSTs: a bounded form, from our own pages, with this session's CSRF token. */
  const checkedPostOf = (maxSize: number) =>
    [
      bodyLimit({ maxSize, onError: (c) => refuse(c, 413, "Too large", "This form is larger than any form of the dashboard.") }),
      async (c: Context<DashboardEnv>, next: () => Promise<void>) => {
        if (!sameOriginPost({ origin: c.req.header("origin"), secFetchSite: c.req.header("sec-fetch-site") }, options.port())) {
          return refuse(c, 403, "Refused", "This action must come from the dashboard's own page.");
        }
        const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
        const token = typeof form.csrf === "string" ? form.csrf : "";
        if (!sameToken(token, c.get("session").csrf)) {
          return refuse(c, 403, "Refused", "This form's security token is missing or out of date.", "Go back, reload the page and confirm again.");
        }
        await next();
      },
    ] as const;
  const checkedPost = checkedPostOf(MAX_FORM_BYTES);

  app.post("/sign-out", ...checkedPost, (c) => {
    sessions.signOut(c.get("session").id);
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.html(messagePage("Signed out", "This browser is signed out of the dashboard.", "Restart `mdame dashboard` for a new sign-in link."));
  });

  app.get("/", async (c) => page(c, "Overview", "/", await overviewPage(api, now())));
  app.get("/queues", async (c) => page(c, "Queues", "/queues", await queuesPage(api, now())));
  app.get("/dead-letters", async (c) => page(c, "Dead letters", "/dead-letters", await deadLettersPage(api, now())));
  app.get("/videos", async (c) => page(c, "Videos", "/videos", await videosPage(api, now())));
  app.get("/quota", async (c) => page(c, "Quota & accounts", "/quota", await quotaPage(api, now())));
  app.get("/schedules", async (c) => page(c, "Schedules", "/schedules", await schedulesPage(api, now())));
  app.get("/analytics", async (c) => page(c, "Analytics", "/analytics", await analyticsPage(api, now())));
  app.get("/spend", async (c) => page(c, "Spend", "/spend", await spendPage(api)));
  app.get("/review", async (c) => page(c, "Review", "/review", await reviewsPage(api, now())));

  app.get("/review/:id", async (c) => {
    const id = c.req.param("id");
    if (!UUID.test(id)) return refuse(c, 400, "Bad request", "A review is named by its work unit's id (a uuid).");
    const { title, body, mediaOrigins, failed } = await reviewPage(api, id.toLowerCase(), c.get("session").csrf, now());
    c.set("mediaOrigins", mediaOrigins);
    return page(c, title, "/review", body, failed ? 502 : 200);
  });

  /** A decision on a review: the form checked by the API's own contract (400 with each problem), then the API's call. */
  app.post("/review/:id/:decision{approve|reject}", ...checkedPostOf(MAX_REVIEW_FORM_BYTES), async (c) => {
    const id = c.req.param("id");
    if (!UUID.test(id)) return refuse(c, 400, "Bad request", "A review is named by its work unit's id (a uuid).");
    const unitId = id.toLowerCase();
    const approve = c.req.param("decision") === "approve";
    const form = await c.req.parseBody();
    const text = (name: string) => (typeof form[name] === "string" ? form[name] as string : undefined);
    const parsed = approve
      ? ApproveReviewBody.safeParse({ title: text("title"), description: text("description")?.replace(/\r\n/g, "\n") })
      : RejectReviewBody.safeParse({ reason: text("reason") ?? "" });
    if (!parsed.success) {
      return refuse(c, 400, "Not sent", `The form breaks the review's limits: ${describeIssues(parsed.error.issues).join("; ")}.`, "Go back and correct it.");
    }
    try {
      const review = approve
        ? await api.api.approveReview(unitId, parsed.data as ApproveReviewBody)
        : await api.api.rejectReview(unitId, (parsed.data as RejectReviewBody).reason);
      return page(c, approve ? "Approved" : "Rejected", "/review", decided(review));
    } catch (error) {
      return page(
        c,
        approve ? "Not approved" : "Not rejected",
        "/review",
        html`${sectionError(`the decision on unit ${unitId}`, error)}<p><a href="/review/${unitId}">Back to the review</a></p>`,
        502,
      );
    }
  });

  app.get("/videos/:id", async (c) => {
    const id = c.req.param("id");
    if (!UUID.test(id)) return refuse(c, 400, "Bad request", "A video is named by its publication's id (a uuid).");
    const { title, body, mediaOrigins } = await videoPage(api, id.toLowerCase(), now());
    c.set("mediaOrigins", mediaOrigins);
    return page(c, title, "/videos", body);
  });

  app.get("/dead-letters/:id/retry", async (c) => {
    const id = c.req.param("id");
    if (!DEAD_LETTER_ID.test(id)) return refuse(c, 400, "Bad request", "A dead letter is named by its id (a positive whole number).");
    try {
      const { dead_letters } = await api.api.listDeadLetters(500);
      const deadLetter = dead_letters.find((d) => String(d.id) === id);
      if (!deadLetter) return refuse(c, 404, "Not found", `No dead letter ${id} among the 500 most recent.`);
      return page(c, `Retry dead letter ${id}?`, "/dead-letters", confirmRetry(deadLetter, c.get("session").csrf, now()));
    } catch (error) {
      return page(c, `Retry dead letter ${id}?`, "/dead-letters", sectionError(`dead letter ${id}`, error), 502);
    }
  });

  app.post("/dead-letters/:id/retry", ...checkedPost, async (c) => {
    const id = c.req.param("id");
    if (!DEAD_LETTER_ID.test(id)) return refuse(c, 400, "Bad request", "A dead letter is named by its id (a positive whole number).");
    try {
      return page(c, `Dead letter ${id} retried`, "/dead-letters", retried(await api.api.retryDeadLetter(id)));
    } catch (error) {
      return page(
        c,
        `Dead letter ${id} not retried`,
        "/dead-letters",
        html`${sectionError(`a retry of dead letter ${id}`, error)}<p><a href="/dead-letters">Back to the dead letters</a></p>`,
        502,
      );
    }
  });

  app.get("/schedules/:name/run", async (c) => {
    const name = OpsScheduleName.safeParse(c.req.param("name"));
    if (!name.success) return refuse(c, 404, "Not found", "No such engine schedule.");
    try {
      const schedule = (await api.ops.schedules()).schedules.find((s) => s.name === name.data);
      if (!schedule || !schedule.runnable) return refuse(c, 404, "Not found", `No engine schedule ${name.data} that can run now.`);
      return page(c, `Run ${schedule.name} now?`, "/schedules", confirmRunNow(schedule, c.get("session").csrf));
    } catch (error) {
      return page(c, `Run ${name.data} now?`, "/schedules", sectionError("the schedules", error), 502);
    }
  });

  app.post("/schedules/:name/run", ...checkedPost, async (c) => {
    const name = OpsScheduleName.safeParse(c.req.param("name"));
    if (!name.success) return refuse(c, 404, "Not found", "No such engine schedule.");
    try {
      return page(c, `${name.data} ran`, "/schedules", ranNow(await api.ops.runSchedule(name.data), now()));
    } catch (error) {
      return page(
        c,
        `${name.data} did not run`,
        "/schedules",
        html`${sectionError(`a run of ${name.data}`, error)}<p><a href="/schedules">Back to the schedules</a></p>`,
        502,
      );
    }
  });

  app.notFound((c) => refuse(c, 404, "Not found", "There is no such page."));
  // Never a stack trace: the page says the dashboard failed, and the terminal keeps the detail.
  app.onError((error, c) => {
    console.error(`mdame dashboard: ${c.req.method} ${c.req.path} failed: ${error instanceof Error ? error.message : String(error)}`);
    return wantsHtml(c) ? c.html(messagePage("Error", "The dashboard failed to build this page."), 500) : c.json({ error: "internal error" }, 500);
  });
  return app;
}
