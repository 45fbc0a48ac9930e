/**
 * The one interface of a trend source: `fetch(config, context) -> Signal[]`. Each client turns its
 * service's documented answer into Signals; an item the contract refuses (no title, no date, a
 * non-http URL) is left out, and a failed call throws a ProviderError naming the source.
 */
import { Signal, type SourceConfig, type SourceKind } from "../../contracts/sources.ts";
import { readerText } from "../../text/reader-text.ts";
import { HOUR_MS } from "../../time.ts";

export interface SourceContext {
  /** The dimension's trend_geo, for sources that take a region. */
  geo: string;
  signal?: AbortSignal;
  /** Milliseconds since the epoch; velocities are computed against it. */
  now: number;
}

export interface SourceClient<K extends SourceKind = SourceKind> {
  kind: K;
  fetch(config: Extract<SourceConfig, { kind: K }>, context: SourceContext): Promise<Signal[]>;
}

/** Traffic per hour since publication (at least one hour, so a minute-old item is not infinitely fast). */
function velocityOf(traffic: number | null, publishedAt: string, now: number): number | null {
  if (traffic === null) return null;
  const hours = Math.max(1, (now - Date.parse(publishedAt)) / HOUR_MS);
  return Math.round((traffic / hours) * 100) / 100;
}

/** A Signal from a source's item, or undefined when the item is not one the contract accepts. */
export function toSignal(item: {
  source: SourceKind;
  title: string;
  url?: string | null;
  published_at: string | undefined;
  traffic: number | null;
  velocity?: number | null;
  categories?: string[];
  context?: string[];
}, now: number): Signal | undefined {
  // A title is text (a reader sees `<b>` in it as written); a context line may be HTML (a feed's
  // description, a news snippet), of which only what a reader would see is kept: markup, comments
  // and hidden elements go before any model reads it (shared/text/reader-text.ts).
  const title = item.title.replace(/\s+/g, " ").trim().slice(0, 300);
  const url = item.url && /^https?:\/\//i.test(item.url) && URL.canParse(item.url) ? item.url : null;
  const published = item.published_at === undefined ? undefined : Date.parse(item.published_at);
  if (published === undefined || Number.isNaN(published)) return undefined;
  const publishedAt = new Date(Math.min(published, now)).toISOString();
  const parsed = Signal.safeParse({
    source: item.source,
    title,
    url,
    published_at: publishedAt,
    traffic: item.traffic,
    velocity: item.velocity === undefined ? velocityOf(item.traffic, publishedAt, now) : item.velocity,
    categories: [...new Set((item.categories ?? []).map((c) => c.trim().toLowerCase()).filter(Boolean))].slice(0, 20),
    context: (item.context ?? []).map((c) => readerText(c).slice(0, 300)).filter(Boolean).slice(0, 5),
  });
  return parsed.success ? parsed.data : undefined;
}
