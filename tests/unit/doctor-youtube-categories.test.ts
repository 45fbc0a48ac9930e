/**
 * The doctor's category check (cli/doctor/youtube-categories.ts): its verdict on videoCategories.list
 * answers, and the requests the googleapis client sends, against a small server speaking YouTube's
 * documented shape (`youtube#videoCategoryListResponse`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { categoryVerdict, channelCountry, DEFAULT_REGION_CODE, listVideoCategory } from "../../cli/doctor/youtube-categories.ts";

const QUESTION = { dimension: "sains-singkat", categoryId: "27", regionCode: "ID" };

const categories = (...items: { id: string; title: string; assignable: boolean }[]) => ({
  kind: "youtube#videoCategoryListResponse",
  etag: "test",
  items: items.map(({ id, title, assignable }) => ({
    kind: "youtube#videoCategory",
    etag: "test",
    id,
    snippet: { title, assignable, channelId: "UCBR8-60-B28hp2BmDPdntcQ" },
  })),
});

describe("categoryVerdict", () => {
  test("an assignable category is ok, with its title and region", () => {
    expect(categoryVerdict(QUESTION, categories({ id: "27", title: "Education", assignable: true }))).toEqual({
      family: "providers",
      name: "category sains-singkat",
      status: "ok",
      message: "category 27 (Education) is assignable in region ID",
    });
  });

  test("a category that is not assignable fails with the command that changes it", () => {
    const verdict = categoryVerdict({ ...QUESTION, categoryId: "18" }, categories({ id: "18", title: "Short Movies", assignable: false }));
    expect(verdict.status).toBe("fail");
    expect(verdict.message).toBe("category 18 (Short Movies) cannot be assigned to videos in region ID");
    expect(verdict.fix).toContain("mdame dimension set sains-singkat --category <id>");
  });

  test("a category YouTube does not list (an empty answer) fails as not existing", () => {
    const verdict = categoryVerdict({ ...QUESTION, categoryId: "999" }, categories());
    expect(verdict.status).toBe("fail");
    expect(verdict.message).toBe("category 999 does not exist in region ID: uploads would be refused");
    // Another category in the answer is not this one.
    expect(categoryVerdict({ ...QUESTION, categoryId: "999" }, categories({ id: "27", title: "Education", assignable: true })).status).toBe("fail");
  });

  test("an answer without YouTube's shape is a warning, not a verdict", () => {
    expect(categoryVerdict(QUESTION, { items: "none" }).status).toBe("warn");
    expect(categoryVerdict(QUESTION, null).status).toBe("warn");
  });
});

describe("the requests, through the googleapis client", () => {
  const seen: { path: string; query: URLSearchParams; authorization: string | null }[] = [];
  let country: string | undefined;
  let server: ReturnType<typeof Bun.serve>;
  let base: string;

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const url = new URL(request.url);
        seen.push({ path: url.pathname, query: url.searchParams, authorization: request.headers.get("authorization") });
        if (url.pathname === "/youtube/v3/channels") {
          return Response.json({
            kind: "youtube#channelListResponse",
            items: [{ kind: "youtube#channel", id: "UC_test", snippet: { title: "t", ...(country && { country }) } }],
          });
        }
        if (url.pathname === "/youtube/v3/videoCategories") {
          const all = [{ id: "27", title: "Education", assignable: true }, { id: "18", title: "Short Movies", assignable: false }];
          // As YouTube: exactly one filter, a region's whole list or the named ids.
          const ids = url.searchParams.getAll("id").join(",").split(",").filter(Boolean);
          if ((ids.length > 0) === url.searchParams.has("regionCode")) {
            return Response.json({ error: { code: 400, message: "No filter selected. Expected one of: id, regionCode" } }, { status: 400 });
          }
          return Response.json(categories(...all.filter((c) => ids.length === 0 || ids.includes(c.id))));
        }
        return Response.json({ error: { code: 404, message: "Not Found" } }, { status: 404 });
      },
    });
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(() => server.stop(true));

  test("videoCategories.list asks for the snippets of the region's categories, as the account", async () => {
    const answer = await listVideoCategory(base, "access-token-1", { categoryId: "27", regionCode: "ID" });
    const request = seen.at(-1)!;
    expect(request.path).toBe("/youtube/v3/videoCategories");
    expect(request.query.get("part")).toBe("snippet");
    expect(request.query.has("id")).toBe(false);
    expect(request.query.get("regionCode")).toBe("ID");
    expect(request.authorization).toBe("Bearer access-token-1");
    expect(categoryVerdict(QUESTION, answer).status).toBe("ok");
    expect(categoryVerdict({ ...QUESTION, categoryId: "18" }, await listVideoCategory(base, "t", { categoryId: "18", regionCode: "ID" })).status).toBe("fail");
  });

  test("the region is the channel's country when it names one; none: the default is the caller's", async () => {
    country = undefined;
    expect(await channelCountry(base, "access-token-2")).toBeNull();
    expect(seen.at(-1)!.query.get("mine")).toBe("true");
    country = "ID";
    expect(await channelCountry(base, "access-token-2")).toBe("ID");
    expect(DEFAULT_REGION_CODE).toBe("US");
  });

  test("a server without the route fails the call (the check then warns)", async () => {
    const without = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ error: { code: 404, message: "Not Found" } }, { status: 404 }) });
    try {
      await expect(listVideoCategory(`http://127.0.0.1:${without.port}`, "t", { categoryId: "27", regionCode: "US" })).rejects.toThrow("Not Found");
    } finally {
      without.stop(true);
    }
  });
});
