/**
 * Each trend source client against the emulator's recorded answers in the documented format, and
 * the failures a real service can hand back: an outage or a malformed answer is a clear error of
 * that source, and `fetchSources` skips it while the others go on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Signal } from "../../shared/contracts/sources.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { createSourceClients, fetchSources, type SourceClients } from "../../shared/providers/sources/index.ts";
import { parseFeed } from "../../shared/providers/sources/feed.ts";
import { redditSource } from "../../shared/providers/sources/reddit.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
let clients: SourceClients;
const context = () => ({ geo: "US", now: Date.now() });

beforeAll(async () => {
  emulator = await startTestEmulator();
  const env = emulator.serviceEnv();
  clients = createSourceClients({
    TRENDS_BASE_URL: env.TRENDS_BASE_URL,
    HACKER_NEWS_BASE_URL: env.HACKER_NEWS_BASE_URL,
    WIKIMEDIA_BASE_URL: env.WIKIMEDIA_BASE_URL,
    REDDIT_AUTH_BASE_URL: env.REDDIT_AUTH_BASE_URL,
    REDDIT_API_BASE_URL: env.REDDIT_API_BASE_URL,
    REDDIT_CLIENT_ID: env.REDDIT_CLIENT_ID,
    REDDIT_CLIENT_SECRET: env.REDDIT_CLIENT_SECRET,
  });
});
afterAll(() => emulator.stop());

const valid = (signals: Signal[]) => {
  for (const signal of signals) expect(Signal.parse(signal)).toEqual(signal);
  return signals;
};

describe("source clients", () => {
  test("Google Trends: the dimension's geo unless the source names one; traffic and headlines kept", async () => {
    const us = valid(await clients.google_trends.fetch({ kind: "google_trends", weight: 1 }, context()));
    expect(us.find((s) => s.title === "james webb telescope")).toMatchObject({
      source: "google_trends",
      traffic: 50_000,
      url: "https://space-weekly.example/2024/webb-baby-galaxy",
    });
    expect(us.find((s) => s.title === "james webb telescope")!.context[0]).toBe('Webb spots a "baby galaxy" & astronomers are surprised');
    const id = await clients.google_trends.fetch({ kind: "google_trends", weight: 1, geo: "ID" }, context());
    expect(id.map((s) => s.title)).toContain("resep rendang");
  });

  test("Hacker News: stories of the list in order with their points; jobs, dead and deleted items left out", async () => {
    const top = valid(await clients.hacker_news.fetch({ kind: "hacker_news", weight: 1, list: "top", limit: 30 }, context()));
    expect(top.map((s) => s.title)).toEqual([
      "Show HN: A tiny quantum circuit simulator written in Rust",
      "The James Webb Telescope's new deep field",
      "An open source battery management chip",
      "Ask HN: What is your sourdough recipe?",
      "A robot arm that learns to fold laundry from twenty demos",
    ]);
    expect(top[0]).toMatchObject({ traffic: 420, url: "https://qsim.example/blog/launch" });
    // Three hours old with 420 points: 140 points an hour.
    expect(top[0].velocity).toBeCloseTo(140, 0);
    // A text post links to its discussion.
    expect(top[3].url).toBe("https://news.ycombinator.com/item?id=9004");
    const best = await clients.hacker_news.fetch({ kind: "hacker_news", weight: 1, list: "best", limit: 2 }, context());
    expect(best.map((s) => s.traffic)).toEqual([505, 420]);
  });

  test("Wikipedia: yesterday's most-read articles, without the main page or other namespaces", async () => {
    const en = valid(await clients.wikipedia.fetch({ kind: "wikipedia", weight: 1, project: "en.wikipedia", limit: 5 }, context()));
    expect(en.map((s) => s.title)).toEqual(["Deaths in 2026", "Taylor Swift", "Quantum computing", "James Webb Space Telescope", "Aurora"]);
    expect(en[2]).toMatchObject({ traffic: 305_000, url: "https://en.wikipedia.org/wiki/Quantum_computing" });
    const id = await clients.wikipedia.fetch({ kind: "wikipedia", weight: 1, project: "id.wikipedia", limit: 40 }, context());
    expect(id.map((s) => s.title)).toEqual(["Gerhana bulan", "Rendang", "Komodo", "Planet Mars", "Gunung Merapi"]);
  });

  test("RSS and Atom feeds: titles, links, dates and categories; an undated item left out", async () => {
    const rss = valid(await clients.feed.fetch({ kind: "feed", weight: 1, url: `${emulator.url}/feeds/kitchen.xml`, limit: 30 }, context()));
    expect(rss.map((s) => s.title)).toEqual([
      "Brown butter banana bread",
      "Coffee brewing ratios, explained",
      "Sourdough Starter Tips",
      "Weeknight ramen from pantry staples",
    ]);
    expect(rss[0]).toMatchObject({ categories: ["baking"], traffic: null, url: "https://kitchen-table.example/brown-butter-banana-bread" });
    expect(rss[0].context).toEqual(["Nutty brown butter makes this banana bread the best one yet."]);
    expect(rss[1].context).toEqual(["From espresso to cold brew & back."]);

    const atom = valid(await clients.feed.fetch({ kind: "feed", weight: 1, url: `${emulator.url}/feeds/space-notes.xml`, limit: 30 }, context()));
    expect(atom[0]).toMatchObject({
      title: "Satellite constellation brightens the night sky",
      url: "https://space-notes.example/satellite-constellation",
      categories: ["space"],
    });
    expect(Date.now() - Date.parse(atom[0].published_at)).toBeGreaterThan(110 * 60_000);
    expect(atom[1].url).toBe("https://space-notes.example/engine-test");
  });

  test("Reddit: a client-credentials token, then the hot listing; stickied and NSFW posts left out", async () => {
    const posts = valid(await clients.reddit.fetch({ kind: "reddit", weight: 1, subreddit: "Cooking", limit: 25 }, context()));
    expect(posts.map((s) => s.title)).toEqual([
      "Easy weeknight pasta recipe that never fails",
      "My first sourdough loaf after a month of feeding the starter",
      "Which kitchen knife should a beginner buy first?",
    ]);
    expect(posts[0]).toMatchObject({ traffic: 3200, categories: ["cooking", "recipe"], url: "https://www.reddit.com/r/Cooking/comments/c0002/" });
    // The listing alone, without the token, is refused: the client always goes through OAuth.
    const bare = await fetch(`${emulator.url}/r/Cooking/hot`);
    expect(bare.status).toBe(401);
  });
});

describe("failures", () => {
  test("an outage, a malformed feed, a missing project and refused credentials are clear errors of their source", async () => {
    const outage = await clients.feed.fetch({ kind: "feed", weight: 1, url: `${emulator.url}/feeds/unavailable.xml`, limit: 5 }, context()).catch((e) => e);
    expect(outage).toBeInstanceOf(ProviderUnavailableError);
    expect(outage.status).toBe(503);
    const broken = await clients.feed.fetch({ kind: "feed", weight: 1, url: `${emulator.url}/feeds/broken.xml`, limit: 5 }, context()).catch((e) => e);
    expect(broken).toBeInstanceOf(ProviderUnavailableError);
    expect(broken.message).toStartWith("feed is not well-formed XML");
    expect(() => parseFeed("<html><body>not a feed</body></html>", Date.now())).toThrow("neither RSS 2.0 nor Atom (root <html>)");
    const project = await clients.wikipedia.fetch({ kind: "wikipedia", weight: 1, project: "xx.wikipedia", limit: 5 }, context()).catch((e) => e);
    expect(project).toBeInstanceOf(ProviderRejectedError);
    expect(project.status).toBe(404);
    const reddit500 = await clients.reddit.fetch({ kind: "reddit", weight: 1, subreddit: "emulator_outage", limit: 5 }, context()).catch((e) => e);
    expect(reddit500).toBeInstanceOf(ProviderUnavailableError);
    expect(reddit500.status).toBe(500);

    const revoked = redditSource({ clientId: "revoked-app", clientSecret: "s", authBaseUrl: emulator.url, apiBaseUrl: emulator.url });
    const refused = await revoked.fetch({ kind: "reddit", weight: 1, subreddit: "Cooking", limit: 5 }, context()).catch((e) => e);
    expect(refused).toBeInstanceOf(ProviderRejectedError);
    expect(refused.status).toBe(401);
    const unset = redditSource({ clientId: undefined, clientSecret: undefined, authBaseUrl: emulator.url, apiBaseUrl: emulator.url });
    await expect(unset.fetch({ kind: "reddit", weight: 1, subreddit: "Cooking", limit: 5 }, context())).rejects.toThrow("REDDIT_CLIENT_ID");
  });

  test("a failing source is skipped and named; the others' signals come through with their weights", async () => {
    const { signals, failures } = await fetchSources(clients, [
      { kind: "feed", weight: 0.9, url: `${emulator.url}/feeds/kitchen.xml`, limit: 30 },
      { kind: "feed", weight: 1, url: `${emulator.url}/feeds/broken.xml`, limit: 30 },
      { kind: "reddit", weight: 0.5, subreddit: "emulator_outage", limit: 5 },
    ], context());
    expect(signals.length).toBe(4);
    expect(signals.every((s) => s.weight === 0.9)).toBe(true);
    expect(failures.map((f) => [f.source, f.retriable])).toEqual([[`feed ${emulator.url}/feeds/broken.xml`, true], ["reddit r/emulator_outage", true]]);
  });

  test("every source failing fails the fetch, retriably", async () => {
    const error = await fetchSources(clients, [
      { kind: "feed", weight: 1, url: `${emulator.url}/feeds/unavailable.xml`, limit: 5 },
      { kind: "wikipedia", weight: 1, project: "xx.wikipedia", limit: 5 },
    ], context()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.retriable).toBe(true);
    expect(error.message).toContain("every source failed");
    expect(error.message).toContain("wikipedia xx.wikipedia");
  });
});
