/**
 * Hacker News through its official Firebase API (https://github.com/HackerNews/API):
 * `GET /v0/topstories.json` or `/v0/beststories.json` (story ids, best first), then
 * `GET /v0/item/<id>.json` for each. Traffic is the story's points; a deleted, dead or non-story
 * item is left out. An item that fails alone is left out too; the list failing fails the source.
 */
import { z } from "zod";
import { ProviderUnavailableError } from "../errors.ts";
import { mapLimited, requestJson } from "./http.ts";
import { type SourceClient, toSignal } from "./source.ts";

const PROVIDER = "hacker-news";

const StoryIds = z.array(z.number().int().positive());
const Item = z.object({
  id: z.number().int(),
  type: z.string(),
  title: z.string().optional(),
  url: z.string().optional(),
  score: z.number().nonnegative().optional(),
  time: z.number().int().positive(),
  deleted: z.boolean().optional(),
  dead: z.boolean().optional(),
}).passthrough();

export function hackerNewsSource(baseUrl: string): SourceClient<"hacker_news"> {
  return {
    kind: "hacker_news",
    async fetch(config, context) {
      const listUrl = new URL(`/v0/${config.list}stories.json`, baseUrl);
      const ids = StoryIds.safeParse(await requestJson({ provider: PROVIDER, url: listUrl, signal: context.signal }));
      if (!ids.success) throw new ProviderUnavailableError(PROVIDER, `${listUrl.pathname} is not a list of story ids`);
      const items = await mapLimited(ids.data.slice(0, config.limit), 6, async (id) => {
        try {
          const item = Item.safeParse(await requestJson({ provider: PROVIDER, url: new URL(`/v0/item/${id}.json`, baseUrl), signal: context.signal }));
          return item.success ? item.data : undefined;
        } catch {
          // One missing story leaves a gap, not an outage: the list itself answered.
          return undefined;
        }
      });
      return items.flatMap((item) => {
        if (!item || item.type !== "story" || item.deleted || item.dead || !item.title) return [];
        const signal = toSignal({
          source: "hacker_news",
          title: item.title,
          url: item.url ?? `https://news.ycombinator.com/item?id=${item.id}`,
          published_at: new Date(item.time * 1000).toISOString(),
          traffic: item.score ?? 0,
        }, context.now);
        return signal ? [signal] : [];
      });
    },
  };
}
