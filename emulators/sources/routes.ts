/**
 * Trend sources besides Google Trends, each speaking its documented protocol from fixtures in
 * `fixtures/sources/` (dates filled at serve time, so items always look fresh):
 *
 *   GET /v0/topstories.json, /v0/beststories.json, /v0/item/<id>.json     Hacker News Firebase API
 *   GET /api/rest_v1/metrics/pageviews/top/<project>/all-access/<y>/<m>/<d>  Wikimedia top pageviews
 *   GET /feeds/<name>.xml                                                   RSS 2.0 / Atom feeds
 *
 * Deterministic failures for tests: `/feeds/broken.xml` is cut off mid-document, `/feeds/unavailable.xml`
 * answers 503, a Wikimedia project without a fixture answers the API's 404 problem document.
 */
import { readFile } from "node:fs/promises";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { renderFeed } from "../trends/routes.ts";

const FIXTURES = new URL("../fixtures/sources/", import.meta.url);

interface HackerNewsFixture {
  top: number[];
  best: number[];
  items: Record<string, Record<string, unknown> & { age_minutes: number }>;
}

async function fixture(path: string): Promise<string | undefined> {
  try {
    return await readFile(new URL(path, FIXTURES), "utf8");
  } catch {
    return undefined;
  }
}

async function hackerNews(url: URL): Promise<Response | undefined> {
  const list = /^\/v0\/(top|best)stories\.json$/.exec(url.pathname);
  const item = /^\/v0\/item\/(\d+)\.json$/.exec(url.pathname);
  if (!list && !item) return undefined;
  const data = JSON.parse((await fixture("hacker-news.json"))!) as HackerNewsFixture;
  if (list) return jsonResponse(list[1] === "top" ? data.top : data.best);
  const stored = data.items[item![1]];
  // Firebase answers `null` for an id it does not hold.
  if (!stored) return jsonResponse(null);
  const { age_minutes: age, ...rest } = stored;
  return jsonResponse({ ...rest, time: Math.floor(Date.now() / 1000) - age * 60 });
}

const TOP_PAGEVIEWS = /^\/api\/rest_v1\/metrics\/pageviews\/top\/([^/]+)\/all-access\/(\d{4})\/(\d{2})\/(\d{2})$/;

async function wikimedia(url: URL): Promise<Response | undefined> {
  const match = TOP_PAGEVIEWS.exec(url.pathname);
  if (!match) return undefined;
  const [, project, year, month, day] = match;
  const text = /^[a-z-]+\.wikipedia$/.test(project) ? await fixture(`wikimedia/${project}.json`) : undefined;
  if (!text) {
    return jsonResponse(
      {
        type: "https://mediawiki.org/wiki/HyperSwitch/errors/not_found",
        title: "Not found.",
        method: "get",
        detail: "The date(s) you used are valid, but we either do not have data for those date(s), or the project you asked for is not loaded yet.",
        uri: url.pathname,
      },
      404,
      { "content-type": "application/problem+json" },
    );
  }
  const { articles } = JSON.parse(text) as { articles: { article: string; views: number }[] };
  return jsonResponse({
    items: [{ project, access: "all-access", year, month, day, articles: articles.map((a, i) => ({ ...a, rank: i + 1 })) }],
  });
}

async function feeds(url: URL): Promise<Response | undefined> {
  const match = /^\/feeds\/([a-z0-9-]+)\.xml$/.exec(url.pathname);
  if (!match) return undefined;
  if (match[1] === "unavailable") return new Response("Service Unavailable", { status: 503, headers: { "content-type": "text/plain" } });
  const template = await fixture(`feeds/${match[1]}.xml`);
  if (!template) return new Response("Not Found", { status: 404, headers: { "content-type": "text/plain" } });
  const atom = template.includes('http://www.w3.org/2005/Atom"') && /<feed[\s>]/.test(template);
  return new Response(renderFeed(template, new Date()), {
    headers: { "content-type": `${atom ? "application/atom+xml" : "application/rss+xml"}; charset=utf-8`, "cache-control": "no-store" },
  });
}

export async function handleSources(req: Request, url: URL, _ctx: EmulatorContext): Promise<Response | undefined> {
  if (!url.pathname.startsWith("/v0/") && !url.pathname.startsWith("/api/rest_v1/") && !url.pathname.startsWith("/feeds/")) return undefined;
  if (req.method !== "GET") return new Response("Method Not Allowed", { status: 405 });
  return await hackerNews(url) ?? await wikimedia(url) ?? await feeds(url);
}
