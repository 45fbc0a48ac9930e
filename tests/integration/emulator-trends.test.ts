import { afterAll, beforeAll, expect, test } from "bun:test";
import { topicFingerprint } from "../../shared/hashing.ts";
import { ProviderRejectedError, ProviderUnavailableError } from "../../shared/providers/errors.ts";
import { fetchTrendingTopics, parseApproxTraffic, parseTrendsFeed, TrendSignal } from "../../shared/providers/trends/google-trends-rss.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());

test("the US feed parses into fresh trend signals with traffic numbers and news", async () => {
  const signals = await fetchTrendingTopics({ baseUrl: emulator.url, geo: "US" });
  expect(signals.length).toBeGreaterThanOrEqual(8);
  for (const signal of signals) expect(TrendSignal.parse(signal)).toEqual(signal);

  const byTitle = new Map(signals.map((s) => [s.title, s]));
  expect(byTitle.get("james webb telescope")?.approx_traffic).toBe(50_000);
  expect(byTitle.get("quantum computing")?.approx_traffic).toBe(2_000);
  expect(byTitle.get("honeybees")?.approx_traffic).toBe(200);

  // CDATA, entity and character references come out as plain text.
  const webb = byTitle.get("james webb telescope")!;
  expect(webb.news[0]).toEqual({
    title: 'Webb spots a "baby galaxy" & astronomers are surprised',
    url: "https://space-weekly.example/2024/webb-baby-galaxy",
    source: "Space Weekly",
  });
  expect(byTitle.get("honeybees")?.news[0].title).toBe("Why honeybees dance — and what the dance means");
  expect(byTitle.get("marathon training")?.news[0].title).toBe("A beginner's 16-week marathon plan");

  // Dates are filled at serve time: the newest item is minutes old, none is in the future.
  const ages = signals.map((s) => Date.now() - Date.parse(s.published_at));
  expect(Math.min(...ages)).toBeLessThan(60 * 60_000);
  expect(Math.min(...ages)).toBeGreaterThanOrEqual(0);
  expect(Math.max(...ages)).toBeLessThan(24 * 3600_000);
});

test("the Indonesian feed carries Indonesian topics, an unsafe item and a near-duplicate", async () => {
  const signals = await fetchTrendingTopics({ baseUrl: emulator.url, geo: "ID" });
  const titles = signals.map((s) => s.title);
  expect(titles).toContain("resep rendang");
  expect(signals.find((s) => s.title === "gerhana bulan")?.approx_traffic).toBe(100_000);
  expect(signals.find((s) => s.title === "gerhana bulan")?.news[0].title).toContain("Gerhana bulan total");
  // Fixtures the pipeline's safety filter and de-duplication are tested against.
  expect(titles).toContain("judi online");
  expect(await topicFingerprint("Gerhana Bulan!")).toBe(await topicFingerprint("gerhana bulan"));
  expect(titles).toContain("Gerhana Bulan!");
});

test("a code that names no region is a rejection, not an outage", async () => {
  for (const geo of ["ZZ", "XX", "EU"]) {
    const error = await fetchTrendingTopics({ baseUrl: emulator.url, geo }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error.status).toBe(404);
  }
});

test("any other region is served, with the US topics where it has none of its own", async () => {
  const signals = await fetchTrendingTopics({ baseUrl: emulator.url, geo: "GB" });
  const us = await fetchTrendingTopics({ baseUrl: emulator.url, geo: "US" });
  expect(signals.map((s) => s.title)).toEqual(us.map((s) => s.title));
  const feed = await (await fetch(`${emulator.url}/trending/rss?geo=gb`)).text();
  expect(feed).toContain("geo=GB");
  expect(feed).not.toContain("geo=US");
});

test("traffic figures in every written form", () => {
  expect(parseApproxTraffic("200+")).toBe(200);
  expect(parseApproxTraffic("2,000+")).toBe(2000);
  expect(parseApproxTraffic("2.000+")).toBe(2000);
  expect(parseApproxTraffic("10K+")).toBe(10_000);
  expect(parseApproxTraffic("1.5M+")).toBe(1_500_000);
  expect(parseApproxTraffic("lots")).toBeUndefined();
});

test("a broken feed is an outage; items missing their traffic or date are left out", () => {
  expect(() => parseTrendsFeed("<rss><channel><item><title>x</title></channel></rss>")).toThrow(ProviderUnavailableError);
  const feed = `<?xml version="1.0"?><rss version="2.0" xmlns:ht="https://trends.google.com/trending/rss"><channel>
    <item><title>kept</title><ht:approx_traffic>500+</ht:approx_traffic><pubDate>Mon, 2 Dec 2024 10:00:00 -0800</pubDate></item>
    <item><title>no traffic</title><pubDate>Mon, 2 Dec 2024 10:00:00 -0800</pubDate></item>
    <item><title>no date</title><ht:approx_traffic>500+</ht:approx_traffic></item>
  </channel></rss>`;
  expect(parseTrendsFeed(feed)).toEqual([{ title: "kept", approx_traffic: 500, published_at: "2024-12-02T18:00:00.000Z", news: [] }]);
});
