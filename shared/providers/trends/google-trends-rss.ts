/**
 * Google Trends "trending now" RSS feed (`/trending/rss?geo=XX`): RSS 2.0 whose items carry
 * Google's `ht:` namespace (`https://trends.google.com/trending/rss`) for the approximate
 * traffic and the related news items. Parsed with fast-xml-parser (../sources/xml.ts).
 * Runs in Deno and Bun.
 */
import { z } from "zod";
import { errorForStatus, ProviderUnavailableError } from "../errors.ts";
import { children, childText, parseXmlDocument, prefixOf, XmlError } from "../sources/xml.ts";

const PROVIDER = "google-trends";
const TRENDS_NAMESPACE = "https://trends.google.com/trending/rss";

/** One trending search with its news context. */
export const TrendSignal = z.object({
  title: z.string().min(1),
  /** Lower bound of searches, from "200+", "2,000+", "10K+". */
  approx_traffic: z.number().int().nonnegative(),
  published_at: z.iso.datetime(),
  news: z.array(
    z.object({
      title: z.string().min(1),
      url: z.url({ protocol: /^https?$/ }),
      source: z.string(),
    }).strict(),
  ),
}).strict();
export type TrendSignal = z.infer<typeof TrendSignal>;

/**
 * "200+" -> 200, "2,000+" -> 2000, "10K+" -> 10000, "1.5M+" -> 1500000; "2.000+" (dots as
 * thousands separators) -> 2000. Undefined when it is not a traffic figure.
 */
export function parseApproxTraffic(text: string): number | undefined {
  const match = /^\s*([\d.,]+)\s*([KMB])?\s*\+?\s*$/i.exec(text);
  if (!match) return undefined;
  const [, digits, suffix] = match;
  const scale = suffix ? { K: 1e3, M: 1e6, B: 1e9 }[suffix.toUpperCase() as "K" | "M" | "B"] : 1;
  let value: number;
  if (suffix) {
    value = Number(digits.replace(/,/g, ""));
  } else if (/^\d{1,3}([.,]\d{3})+$/.test(digits) || /^\d+$/.test(digits)) {
    value = Number(digits.replace(/[.,]/g, ""));
  } else {
    return undefined;
  }
  return Number.isFinite(value) ? Math.round(value * scale) : undefined;
}

function readItem(item: unknown, ht: string): TrendSignal | undefined {
  const published = Date.parse(childText(item, "pubDate"));
  const candidate = {
    title: childText(item, "title"),
    approx_traffic: parseApproxTraffic(childText(item, `${ht}approx_traffic`)),
    published_at: Number.isNaN(published) ? undefined : new Date(published).toISOString(),
    news: children(item, `${ht}news_item`)
      .map((news) => ({
        title: childText(news, `${ht}news_item_title`),
        url: childText(news, `${ht}news_item_url`),
        source: childText(news, `${ht}news_item_source`),
      }))
      .filter((news) => z.url({ protocol: /^https?$/ }).safeParse(news.url).success && news.title !== ""),
  };
  const parsed = TrendSignal.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
}

/** Parses a feed document; items missing a title, traffic or date are left out. */
export function parseTrendsFeed(xml: string): TrendSignal[] {
  let root: ReturnType<typeof parseXmlDocument>;
  try {
    root = parseXmlDocument(xml);
  } catch (error) {
    if (error instanceof XmlError) throw new ProviderUnavailableError(PROVIDER, `trends feed is not well-formed XML: ${error.message}`, { cause: error });
    throw error;
  }
  const channel = root.name === "rss" ? children(root.element, "channel")[0] : undefined;
  if (!channel) throw new ProviderUnavailableError(PROVIDER, `trends feed is not RSS (root <${root.name}>)`);
  // Without Google's namespace declared, no item carries a traffic figure: every item would be left out.
  const ht = prefixOf(root.element, TRENDS_NAMESPACE);
  if (ht === undefined) return [];
  return children(channel, "item").map((item) => readItem(item, ht)).filter((s): s is TrendSignal => s !== undefined);
}

export async function fetchTrendingTopics(input: { baseUrl: string; geo: string; signal?: AbortSignal }): Promise<TrendSignal[]> {
  const url = new URL("/trending/rss", input.baseUrl);
  url.searchParams.set("geo", input.geo);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/rss+xml, application/xml;q=0.9" }, signal: input.signal });
  } catch (error) {
    throw new ProviderUnavailableError(PROVIDER, `trends feed request failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const body = await response.text();
  if (!response.ok) throw errorForStatus(PROVIDER, response.status, `trends feed answered ${response.status}: ${body.slice(0, 200)}`);
  return parseTrendsFeed(body);
}
