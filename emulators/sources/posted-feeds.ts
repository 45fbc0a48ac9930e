/**
 * RSS 2.0 feeds whose items a test or the soak posts, so each simulated day can bring new topics
 * (the recorded fixtures in `fixtures/sources/` never change):
 *
 *   PUT /_emulator/posted-feeds/<name>   {"items": [{"title", "description"?, "category"?, "age_minutes"?}]}
 *   GET /posted-feeds/<name>.xml         the feed, items dated `age_minutes` before now
 *
 * Items are kept in the data directory, so a restarted emulator serves the same feed. At most 100
 * items of bounded length per feed; anything else is refused with 400 and nothing is stored.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";
import { readJsonValue } from "../admin-json.ts";
import { rfc822 } from "../trends/routes.ts";

const NAME = /^[a-z0-9][a-z0-9_-]{0,60}$/;
const ADMIN = /^\/_emulator\/posted-feeds\/([^/]+)$/;
const PUBLIC = /^\/posted-feeds\/([^/]+)\.xml$/;
const MAX_ITEMS = 100;
const MAX_BODY_BYTES = 256 * 1024;

interface FeedItem {
  title: string;
  description: string;
  category: string | null;
  age_minutes: number;
}

const feedFile = (ctx: EmulatorContext, name: string) => join(ctx.dataDir, "posted-feeds", `${name}.json`);

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function parseItems(body: unknown): FeedItem[] | string {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length > MAX_ITEMS) return `items must be an array of at most ${MAX_ITEMS}`;
  const parsed: FeedItem[] = [];
  for (const [i, raw] of items.entries()) {
    const { title, description = "", category = null, age_minutes: age = 30 } = (raw ?? {}) as Record<string, unknown>;
    if (typeof title !== "string" || title.trim() === "" || title.length > 200) return `items[${i}].title must be 1..200 characters`;
    if (typeof description !== "string" || description.length > 2000) return `items[${i}].description must be at most 2000 characters`;
    if (category !== null && (typeof category !== "string" || category.length > 60)) return `items[${i}].category must be at most 60 characters`;
    if (typeof age !== "number" || !Number.isInteger(age) || age < 0 || age > 100_000) return `items[${i}].age_minutes must be an integer 0..100000`;
    parsed.push({ title, description, category: category as string | null, age_minutes: age });
  }
  return parsed;
}

function renderRss(name: string, items: FeedItem[], now: Date): string {
  const entries = items.map((item, i) => {
    const at = new Date(now.getTime() - item.age_minutes * 60_000);
    return `    <item>\n      <title>${escapeXml(item.title)}</title>\n      <link>https://feeds.invalid/${name}/${i}</link>\n` +
      `      <guid>https://feeds.invalid/${name}/${i}</guid>\n      <description>${escapeXml(item.description)}</description>\n` +
      (item.category ? `      <category>${escapeXml(item.category)}</category>\n` : "") +
      `      <pubDate>${rfc822(at)}</pubDate>\n    </item>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n  <channel>\n    <title>${escapeXml(name)}</title>\n` +
    `    <link>https://feeds.invalid/${name}</link>\n    <description>posted feed</description>\n${entries.join("\n")}\n  </channel>\n</rss>\n`;
}

export async function handlePostedFeeds(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  const admin = ADMIN.exec(url.pathname);
  if (admin) {
    if (req.method !== "PUT") return jsonResponse({ error: "use PUT" }, 405);
    const name = admin[1]!;
    if (!NAME.test(name)) return jsonResponse({ error: "feed name must be lower-case letters, digits, - or _" }, 400);
    const body = await readJsonValue(req, MAX_BODY_BYTES);
    if (body instanceof Response) return body;
    const items = parseItems(body.value);
    if (typeof items === "string") return jsonResponse({ error: items }, 400);
    const file = feedFile(ctx, name);
    await mkdir(join(ctx.dataDir, "posted-feeds"), { recursive: true });
    // Written whole then renamed: a reader never sees half a feed.
    await writeFile(`${file}.tmp`, JSON.stringify(items));
    await rename(`${file}.tmp`, file);
    return jsonResponse({ name, items: items.length });
  }
  const feed = PUBLIC.exec(url.pathname);
  if (!feed) return undefined;
  if (req.method !== "GET") return new Response("Method Not Allowed", { status: 405 });
  const name = feed[1]!;
  let items: FeedItem[];
  try {
    items = NAME.test(name) ? JSON.parse(await readFile(feedFile(ctx, name), "utf8")) as FeedItem[] : [];
  } catch {
    return new Response(`No feed ${name}`, { status: 404, headers: { "content-type": "text/plain" } });
  }
  return new Response(renderRss(name, items, new Date()), {
    headers: { "content-type": "application/rss+xml; charset=utf-8", "cache-control": "no-store" },
  });
}
