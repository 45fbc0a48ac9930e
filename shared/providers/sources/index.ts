/**
 * Every source client, and `fetchSources`: a dimension's sources fetched side by side. A source
 * that fails is reported and skipped, so one outage never sinks the others; when every source
 * fails, the ingest has nothing to go on and the failure is retriable.
 */
import type { Signal, SourceConfig, SourceKind } from "../../contracts/sources.ts";
import { ProviderError, ProviderUnavailableError } from "../errors.ts";
import { feedSource } from "./feed.ts";
import { googleTrendsSource } from "./google-trends.ts";
import { hackerNewsSource } from "./hacker-news.ts";
import { redditSource } from "./reddit.ts";
import type { SourceClient, SourceContext } from "./source.ts";
import { wikipediaSource } from "./wikipedia.ts";

export type SourceClients = { [K in SourceKind]: SourceClient<K> };

/** The base URLs and keys the clients read (shared/config/env.ts names). */
interface SourceEnv {
  /** prod: feeds are fetched from public addresses only (address-guard.ts). */
  ENV?: string;
  TRENDS_BASE_URL: string;
  HACKER_NEWS_BASE_URL: string;
  WIKIMEDIA_BASE_URL: string;
  REDDIT_AUTH_BASE_URL: string;
  REDDIT_API_BASE_URL: string;
  REDDIT_CLIENT_ID?: string;
  REDDIT_CLIENT_SECRET?: string;
}

export function createSourceClients(env: SourceEnv): SourceClients {
  return {
    google_trends: googleTrendsSource(env.TRENDS_BASE_URL),
    hacker_news: hackerNewsSource(env.HACKER_NEWS_BASE_URL),
    wikipedia: wikipediaSource(env.WIKIMEDIA_BASE_URL),
    feed: feedSource({ publicOnly: env.ENV === "prod" }),
    reddit: redditSource({
      clientId: env.REDDIT_CLIENT_ID,
      clientSecret: env.REDDIT_CLIENT_SECRET,
      authBaseUrl: env.REDDIT_AUTH_BASE_URL,
      apiBaseUrl: env.REDDIT_API_BASE_URL,
    }),
  };
}

/** A signal with the weight of the source that gave it. */
interface WeightedSignal {
  signal: Signal;
  weight: number;
}

interface SourceFailure {
  /** `feed https://…`, `reddit r/space`, `google_trends US`: which configured source failed. */
  source: string;
  message: string;
  retriable: boolean;
}

function describeSource(config: SourceConfig, geo: string): string {
  switch (config.kind) {
    case "google_trends":
      return `google_trends ${config.geo ?? geo}`;
    case "hacker_news":
      return `hacker_news ${config.list}`;
    case "wikipedia":
      return `wikipedia ${config.project}`;
    case "feed":
      return `feed ${config.url}`;
    case "reddit":
      return `reddit r/${config.subreddit}`;
  }
}

/**
 * Fetches every configured source at once. Returns the signals of those that answered and the
 * failures of those that did not; throws ProviderUnavailableError (retriable) when none answered.
 */
export async function fetchSources(clients: SourceClients, sources: readonly SourceConfig[], context: SourceContext) {
  const outcomes = await Promise.allSettled(sources.map((config) => (clients[config.kind] as SourceClient).fetch(config as never, context)));
  const signals: WeightedSignal[] = [];
  const failures: SourceFailure[] = [];
  outcomes.forEach((outcome, i) => {
    const config = sources[i];
    if (outcome.status === "fulfilled") {
      for (const signal of outcome.value) signals.push({ signal, weight: config.weight });
    } else {
      const error = outcome.reason;
      failures.push({
        source: describeSource(config, context.geo),
        message: error instanceof Error ? error.message : String(error),
        retriable: !(error instanceof ProviderError) || error.retriable,
      });
    }
  });
  if (sources.length > 0 && failures.length === sources.length) {
    throw new ProviderUnavailableError("sources", `every source failed: ${failures.map((f) => `${f.source}: ${f.message}`).join("; ")}`);
  }
  return { signals, failures };
}
