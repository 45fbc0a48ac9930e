/**
 * Wikipedia's most-read articles through the Wikimedia REST API:
 * `GET /api/rest_v1/metrics/pageviews/top/<project>/all-access/<yyyy>/<mm>/<dd>`, answered as
 * `{items: [{project, access, year, month, day, articles: [{article, views, rank}]}]}`. Yesterday
 * (UTC) is asked for: a day's figures are complete once it is over. Traffic is the day's views;
 * the main page and pages outside the article namespace (`Special:`, `Wikipedia:`, ...) are left out.
 */
import { z } from "zod";
import { ProviderUnavailableError } from "../errors.ts";
import { requestJson } from "./http.ts";
import { type SourceClient, toSignal } from "./source.ts";

const PROVIDER = "wikimedia";

const TopArticles = z.object({
  items: z.array(
    z.object({
      articles: z.array(z.object({ article: z.string(), views: z.number().nonnegative(), rank: z.number().int() }).passthrough()),
    }).passthrough(),
  ).min(1),
}).passthrough();

/** Main pages and namespaces that are not articles, in the projects' languages. */
const NOT_ARTICLES =
  /^(Main_Page|Halaman_Utama|Special:|Spesial:|Istimewa:|Wikipedia:|File:|Berkas:|Portal:|Help:|Bantuan:|Talk:|Category:|Kategori:|Template:|User:|Pengguna:|-$)/;

export function wikipediaSource(baseUrl: string): SourceClient<"wikipedia"> {
  return {
    kind: "wikipedia",
    async fetch(config, context) {
      const day = new Date(context.now - 86_400_000);
      const [yyyy, mm, dd] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()].map((n, i) => String(n).padStart(i === 0 ? 4 : 2, "0"));
      const url = new URL(`/api/rest_v1/metrics/pageviews/top/${encodeURIComponent(config.project)}/all-access/${yyyy}/${mm}/${dd}`, baseUrl);
      const answer = TopArticles.safeParse(
        await requestJson({
          provider: PROVIDER,
          url,
          // Wikimedia asks every client to name itself.
          init: { headers: { "api-user-agent": "md-ame/0.1 (trend ingest)", accept: "application/json" } },
          signal: context.signal,
        }),
      );
      if (!answer.success) throw new ProviderUnavailableError(PROVIDER, `top pageviews for ${config.project} are not in the documented shape`);
      // The day's end: when its figures became final.
      const publishedAt = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1)).toISOString();
      return answer.data.items[0].articles
        .filter((a) => !NOT_ARTICLES.test(a.article))
        .sort((a, b) => a.rank - b.rank)
        .slice(0, config.limit)
        .flatMap((a) => {
          const signal = toSignal({
            source: "wikipedia",
            title: a.article.replace(/_/g, " "),
            url: `https://${config.project}.org/wiki/${encodeURIComponent(a.article)}`,
            published_at: publishedAt,
            traffic: a.views,
            velocity: Math.round((a.views / 24) * 100) / 100,
          }, context.now);
          return signal ? [signal] : [];
        });
    },
  };
}
