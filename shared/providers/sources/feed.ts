/**
 * Any RSS 2.0 or Atom (RFC 4287) feed. RSS: `rss/channel/item` with `title`, `link`, `pubDate`
 * (RFC 822), `category`, `description`. Atom: `feed/entry` with `title`, `link[@rel=alternate]/@href`,
 * `published` or `updated` (RFC 3339), `category/@term`, `summary`. Feeds carry no traffic figure.
 */
import { ProviderUnavailableError } from "../errors.ts";
import { requestText } from "./http.ts";
import { readerText } from "../../text/reader-text.ts";
import { type Lookup, publicAddressGuard } from "./address-guard.ts";
import { type SourceClient, toSignal } from "./source.ts";
import { attribute, children, childText, parseXmlDocument, prefixOf, textOf, XmlError, type XmlObject } from "./xml.ts";
import type { Signal } from "../../contracts/sources.ts";

const PROVIDER = "feed";
const ATOM = "http://www.w3.org/2005/Atom";

/** A summary line from HTML-ish text: tags dropped, first 200 characters. */
function summaryLine(text: string): string {
  return readerText(text).slice(0, 200);
}

function rssItems(channel: unknown, now: number): Signal[] {
  return children(channel, "item").flatMap((item) => {
    const published = Date.parse(childText(item, "pubDate"));
    const signal = toSignal({
      source: "feed",
      title: childText(item, "title"),
      url: childText(item, "link") || null,
      published_at: Number.isNaN(published) ? undefined : new Date(published).toISOString(),
      traffic: null,
      categories: children(item, "category").map(textOf),
      context: [summaryLine(childText(item, "description"))],
    }, now);
    return signal ? [signal] : [];
  });
}

function atomEntries(feed: XmlObject, prefix: string, now: number): Signal[] {
  const name = (local: string) => `${prefix}${local}`;
  return children(feed, name("entry")).flatMap((entry) => {
    const links = children(entry, name("link"));
    const link = links.find((l) => ["", "alternate"].includes(attribute(l, "rel"))) ?? links[0];
    const when = childText(entry, name("published")) || childText(entry, name("updated"));
    const parsed = Date.parse(when);
    const signal = toSignal({
      source: "feed",
      title: childText(entry, name("title")),
      url: attribute(link, "href") || null,
      published_at: Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString(),
      traffic: null,
      categories: children(entry, name("category")).map((c) => attribute(c, "term")),
      context: [summaryLine(childText(entry, name("summary")))],
    }, now);
    return signal ? [signal] : [];
  });
}

/** Signals of a feed document; throws ProviderUnavailableError when it is neither RSS nor Atom. */
export function parseFeed(xml: string, now: number): Signal[] {
  let root: ReturnType<typeof parseXmlDocument>;
  try {
    root = parseXmlDocument(xml);
  } catch (error) {
    if (error instanceof XmlError) throw new ProviderUnavailableError(PROVIDER, `feed is not well-formed XML: ${error.message}`, { cause: error });
    throw error;
  }
  if (root.name === "rss") {
    const channel = children(root.element, "channel")[0];
    if (!channel) throw new ProviderUnavailableError(PROVIDER, "RSS feed has no <channel>");
    return rssItems(channel, now);
  }
  const local = root.name.slice(root.name.indexOf(":") + 1);
  const prefix = prefixOf(root.element, ATOM);
  if (local === "feed" && prefix !== undefined && root.name === `${prefix}feed`) return atomEntries(root.element, prefix, now);
  throw new ProviderUnavailableError(PROVIDER, `feed is neither RSS 2.0 nor Atom (root <${root.name}>)`);
}

/**
 * The feed client. With `publicOnly` (ENV=prod) a feed whose URL or redirect resolves to a
 * non-public address is refused unless the source lists `private_network: true`.
 */
export function feedSource(options: { publicOnly?: boolean; lookup?: Lookup } = {}): SourceClient<"feed"> {
  const guard = publicAddressGuard(PROVIDER, options.lookup);
  return {
    kind: "feed",
    async fetch(config, context) {
      const xml = await requestText({
        provider: PROVIDER,
        url: config.url,
        init: { headers: { accept: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8" } },
        signal: context.signal,
        guard: options.publicOnly && !config.private_network ? guard : undefined,
      });
      return parseFeed(xml, context.now).slice(0, config.limit);
    },
  };
}
