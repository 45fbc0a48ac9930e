/**
 * Google Trends daily RSS (`GET /trending/rss?geo=US`), served from the fixture templates in
 * `fixtures/trends/<GEO>.xml`. A template writes each item's date as `{{PUBDATE -35}}` (minutes
 * before now); it is filled at serve time in RFC 822 form, so the feed always looks fresh. Every
 * region Google Trends knows is served: one without a template of its own gets the US topics under
 * its own geo, so a first dimension in any country runs on the local stack; a code that names no
 * region is 404, as the real feed refuses it.
 */
import { readFile } from "node:fs/promises";
import type { EmulatorContext } from "../context.ts";

const FIXTURES = new URL("../fixtures/trends/", import.meta.url);
/** The regions with topics of their own; any other region is served the US ones. */
const GEOS = new Set(["US", "ID", "RU"]);
const REGION_NAMES = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/** Two-letter codes CLDR names that are no country: unknown, unions, groupings. */
const NOT_COUNTRIES = new Set(["ZZ", "EU", "EZ", "UN", "QO"]);

/** Whether `geo` is an ISO 3166-1 alpha-2 region (Intl names every assigned one). */
const isRegion = (geo: string) => /^[A-Z]{2}$/.test(geo) && !NOT_COUNTRIES.has(geo) && REGION_NAMES.of(geo) !== undefined;

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** RFC 822 date as the feed writes it: `Fri, 6 Dec 2024 04:10:00 +0000`. */
export function rfc822(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[date.getUTCDay()]}, ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/** Fills `{{PUBDATE -35}}` (RFC 822, as RSS writes dates) and `{{ISODATE -35}}` (RFC 3339, as Atom does): minutes before now. */
export function renderFeed(template: string, now: Date): string {
  return template.replace(/\{\{(PUBDATE|ISODATE) (-?\d+)\}\}/g, (_, form: string, minutes: string) => {
    const at = new Date(now.getTime() + Number(minutes) * 60_000);
    at.setUTCSeconds(0, 0);
    return form === "PUBDATE" ? rfc822(at) : at.toISOString().replace(".000Z", "Z");
  });
}

export async function handleTrends(req: Request, url: URL, _ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname !== "/trending/rss") return undefined;
  if (req.method !== "GET") return new Response("Method Not Allowed", { status: 405 });
  const geo = (url.searchParams.get("geo") ?? "US").toUpperCase();
  if (!isRegion(geo)) return new Response(`No trends for geo ${geo}`, { status: 404, headers: { "content-type": "text/plain" } });
  const own = GEOS.has(geo);
  const template = (await readFile(new URL(`${own ? geo : "US"}.xml`, FIXTURES), "utf8")).replaceAll("geo=US", `geo=${geo}`);
  return new Response(renderFeed(template, new Date()), {
    headers: { "content-type": "application/rss+xml; charset=utf-8", "cache-control": "no-store" },
  });
}
