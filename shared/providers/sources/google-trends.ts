/** Google Trends "trending now" RSS as a source: traffic is the approximate search count, context the related headlines. */
import { fetchTrendingTopics } from "../trends/google-trends-rss.ts";
import { type SourceClient, toSignal } from "./source.ts";

export function googleTrendsSource(baseUrl: string): SourceClient<"google_trends"> {
  return {
    kind: "google_trends",
    async fetch(config, context) {
      const trends = await fetchTrendingTopics({ baseUrl, geo: config.geo ?? context.geo, signal: context.signal });
      return trends.flatMap((trend) => {
        const signal = toSignal({
          source: "google_trends",
          title: trend.title,
          url: trend.news[0]?.url ?? null,
          published_at: trend.published_at,
          traffic: trend.approx_traffic,
          context: trend.news.map((n) => n.title),
        }, context.now);
        return signal ? [signal] : [];
      });
    },
  };
}
