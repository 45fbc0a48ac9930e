/**
 * In prod a feed is fetched from public addresses only (shared/providers/sources/address-guard.ts):
 * a feed whose URL or redirect resolves to a loopback, private or link-local address is refused,
 * unless its source lists private_network: true; in dev every feed is fetched. Against a real
 * HTTP server on loopback, through the same createSourceClients the ingest stage uses.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { nonPublicAddress, publicAddressGuard } from "../../shared/providers/sources/address-guard.ts";
import { requestText } from "../../shared/providers/sources/http.ts";
import { createSourceClients } from "../../shared/providers/sources/index.ts";
import { ProviderRejectedError } from "../../shared/providers/errors.ts";

const FEED = `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title>Tide pools at dawn</title><link>https://example.org/a</link><pubDate>${new Date().toUTCString()}</pubDate></item>
</channel></rss>`;

let server: ReturnType<typeof Bun.serve>;
let base: string;
const requested: string[] = [];

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      requested.push(path);
      if (path === "/moved") return new Response(null, { status: 302, headers: { location: "http://10.0.0.9/feed" } });
      return new Response(FEED, { headers: { "content-type": "application/rss+xml" } });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

const clients = (ENV: string) =>
  createSourceClients({
    ENV,
    TRENDS_BASE_URL: base,
    HACKER_NEWS_BASE_URL: base,
    WIKIMEDIA_BASE_URL: base,
    REDDIT_AUTH_BASE_URL: base,
    REDDIT_API_BASE_URL: base,
  });
const context = { geo: "US", now: Date.now() };

describe("which addresses are public", () => {
  test("loopback, private, link-local, unique-local, shared and mapped addresses are not; a public one is", async () => {
    const ranges: Record<string, string | null> = {};
    for (
      const host of [
        "127.0.0.1",
        "[::1]",
        "10.1.2.3",
        "192.168.0.10",
        "169.254.169.254",
        "[fc00::1]",
        "[fe80::1]",
        "100.64.0.1",
        "0.0.0.0",
        "[::ffff:127.0.0.1]",
        "8.8.8.8",
        "[2606:4700::1111]",
      ]
    ) {
      ranges[host] = (await nonPublicAddress(host))?.range ?? null;
    }
    expect(ranges).toEqual({
      "127.0.0.1": "loopback",
      "[::1]": "loopback",
      "10.1.2.3": "private",
      "192.168.0.10": "private",
      "169.254.169.254": "linkLocal",
      "[fc00::1]": "uniqueLocal",
      "[fe80::1]": "linkLocal",
      "100.64.0.1": "carrierGradeNat",
      "0.0.0.0": "unspecified",
      "[::ffff:127.0.0.1]": "loopback",
      "8.8.8.8": null,
      "[2606:4700::1111]": null,
    });
  });

  test("a name is refused when any of its addresses is not public; localhost resolves to loopback", async () => {
    const lookup = async (host: string) => (host === "mixed.example" ? ["93.184.216.34", "10.0.0.7"] : ["93.184.216.34"]);
    expect(await nonPublicAddress("mixed.example", lookup)).toEqual({ address: "10.0.0.7", range: "private" });
    expect(await nonPublicAddress("public.example", lookup)).toBeNull();
    expect((await nonPublicAddress("localhost"))?.range).toBe("loopback");
  });
});

describe("the feed source", () => {
  test("in prod a feed on loopback is refused, naming the address, and never requested", async () => {
    requested.length = 0;
    const error = await clients("prod").feed.fetch({ kind: "feed", weight: 1, url: `${base}/feed`, limit: 10 }, context).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error.message).toContain(`${base} resolves to 127.0.0.1 (loopback)`);
    expect(error.message).toContain("private_network: true");
    expect(requested).toEqual([]);
  });

  test("in prod a source listing private_network: true is fetched; in dev every feed is", async () => {
    const listed = await clients("prod").feed.fetch({ kind: "feed", weight: 1, url: `${base}/feed`, limit: 10, private_network: true }, context);
    expect(listed.map((s) => s.title)).toEqual(["Tide pools at dawn"]);
    const dev = await clients("dev").feed.fetch({ kind: "feed", weight: 1, url: `${base}/feed`, limit: 10 }, context);
    expect(dev.map((s) => s.title)).toEqual(["Tide pools at dawn"]);
  });

  test("each redirect's target is checked before it is requested", async () => {
    const seen: string[] = [];
    const refuse = publicAddressGuard("feed");
    // The server itself is let through here; what it redirects to goes through the real guard.
    const guard = async (url: URL) => {
      seen.push(url.href);
      if (url.host !== new URL(base).host) await refuse(url);
    };
    const error = await requestText({ provider: "feed", url: `${base}/moved`, guard }).catch((e) => e);
    expect(seen).toEqual([`${base}/moved`, "http://10.0.0.9/feed"]);
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error.message).toContain("http://10.0.0.9 resolves to 10.0.0.9 (private)");
  });
});
