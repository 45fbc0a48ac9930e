import { z } from "zod";
import { oneLine } from "./text.ts";

/**
 * What a dimension is about and where its topics come from: the `subject`, `sources` and
 * `min_score` fields of a dimension's configuration (shared/contracts/dimension.ts), and the one
 * shape every source client returns (`Signal`). docs/reference/sources.md explains each field.
 */

const term = oneLine(z.string().trim().min(1, "must not be empty").max(60, "must be at most 60 characters"));

/** What the dimension is about: topics must match it (keywords or categories) and must not carry an excluded term. */
export const Subject = z.object({
  /** Words or phrases of the subject; a topic matches a phrase when it carries all its words. Empty: every topic matches. */
  keywords: z.array(term).max(100, "must list at most 100 keywords").default([])
    .describe("Words or phrases of the subject; a topic matches a phrase when it carries all its words. Empty: every topic matches."),
  /** Categories a source tags its items with (a feed's <category>, a subreddit's name). */
  categories: z.array(term).max(50, "must list at most 50 categories").default([])
    .describe("Categories a source tags its items with (a feed's <category>, a subreddit's name); a topic in one of them matches."),
  /** A topic carrying any of these (in its title or context) is rejected. */
  excluded_terms: z.array(term).max(200, "must list at most 200 terms").default([])
    .describe("A topic carrying any of these (in its title or context) is rejected."),
}).strict();
export type Subject = z.infer<typeof Subject>;

/** How much a source's topics count, relative to the others: (0, 1]. */
const weight = z.number({ message: "must be a number" }).gt(0, "must be more than 0").max(1, "must be at most 1").default(1)
  .describe("How much this source's topics count relative to the others: more than 0, at most 1.");
const limit = (max: number, fallback: number) =>
  z.number({ message: "must be a whole number" }).int("must be a whole number").min(1, `must be 1 to ${max}`).max(max, `must be 1 to ${max}`).default(fallback)
    .describe(`How many items of the source are read per run: 1 to ${max}.`);

/** A source of one kind: its `kind` (described for the schema's readers), its `weight`, then its own fields. */
function source<K extends string, F extends z.ZodRawShape>(kind: K, description: string, fields: F) {
  return z.object({ kind: z.literal(kind).describe(description), weight, ...fields }).strict();
}

const GoogleTrendsSource = source("google_trends", 'Google Trends\' "trending now" RSS feed of a region.', {
  /** Region of the feed; the dimension's trend_geo when left out. */
  geo: z.string().regex(/^[A-Z]{2}$/, "must be a two-letter upper-case country code like US").optional()
    .describe("Region of the feed, two upper-case letters; the dimension's trend_geo when left out."),
});

const HackerNewsSource = source("hacker_news", "Hacker News stories.", {
  /** `top` (topstories) or `best` (beststories). */
  list: z.enum(["top", "best"], { message: "must be top or best" }).default("top")
    .describe("`top` (topstories) or `best` (beststories)."),
  limit: limit(60, 30),
});

const WikipediaSource = source("wikipedia", "A Wikipedia project's most viewed articles of the day.", {
  /** Wikimedia project of the pageviews, e.g. `en.wikipedia`, `id.wikipedia`. */
  project: z.string().regex(/^[a-z]{2,3}(-[a-z]{2,8})?\.wikipedia$/, "must be a Wikipedia project like en.wikipedia")
    .describe("Wikimedia project of the pageviews, e.g. `en.wikipedia`, `id.wikipedia`."),
  limit: limit(100, 40),
});

const FeedSource = source("feed", "An RSS 2.0 or Atom feed.", {
  /** An RSS 2.0 or Atom feed. Checked as one line first: the URL parser would drop a tab or line break silently. */
  url: oneLine(z.string()).pipe(z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(500, "must be at most 500 characters"))
    .describe("Address of an RSS 2.0 or Atom feed (http or https)."),
  /** In prod a feed must resolve to public addresses; true lets one on the operator's own network through. */
  private_network: z.boolean().optional()
    .describe(
      "Fetch the feed even where its address (or a redirect's) is loopback, private or link-local: in prod such a feed is refused unless this is true.",
    ),
  limit: limit(100, 30),
});

const RedditSource = source("reddit", "A subreddit's hot posts.", {
  /** Subreddit name without `r/`. */
  subreddit: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_]{1,20}$/, "must be a subreddit name like space (without r/)")
    .describe("Subreddit name without `r/`."),
  limit: limit(100, 25),
});

/** One source of a dimension's topics. */
export const SourceConfig = z.discriminatedUnion("kind", [GoogleTrendsSource, HackerNewsSource, WikipediaSource, FeedSource, RedditSource], {
  error: "must have kind google_trends, hacker_news, wikipedia, feed or reddit",
});
export type SourceConfig = z.infer<typeof SourceConfig>;
export type SourceKind = SourceConfig["kind"];
export const SOURCE_KINDS = ["google_trends", "hacker_news", "wikipedia", "feed", "reddit"] as const satisfies readonly SourceKind[];

/** What a dimension had before it named its sources: the Google Trends feed of its trend_geo. */
export const DEFAULT_SOURCES: SourceConfig[] = [{ kind: "google_trends", weight: 1 }];

/** Defaults are the whole config's (DimensionConfig), so a patch leaves a field it does not name alone. */
export const Sources = z.array(SourceConfig).min(1, "must list at least one source").max(10, "must list at most 10 sources");

/** Topics scoring under this (0-1) are dropped and recorded with their score. */
export const MinScore = z.number({ message: "must be a number" }).min(0, "must be 0 to 1").max(1, "must be 0 to 1");

/** One trend signal, as every source client returns it. */
export const Signal = z.object({
  source: z.enum(SOURCE_KINDS),
  title: z.string().min(1).max(300),
  url: z.url({ protocol: /^https?$/ }).nullable(),
  published_at: z.iso.datetime(),
  /** The source's own popularity figure: searches, points, page views, upvotes; null when it has none (feeds). */
  traffic: z.number().nonnegative().nullable(),
  /** Traffic per hour since publication, where the source gives both. */
  velocity: z.number().nonnegative().nullable(),
  /** Categories the source tags the item with (lower-case). */
  categories: z.array(z.string()).max(20),
  /** Related headlines or a summary line, for relevance and for the script. */
  context: z.array(z.string()).max(5),
}).strict();
export type Signal = z.infer<typeof Signal>;
