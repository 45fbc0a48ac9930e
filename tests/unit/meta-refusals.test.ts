/** What Meta's answers mean for an account: a new connect, a full publishing window, a throttle, or nothing of the kind. */
import { describe, expect, test } from "bun:test";
import { MetaGraphError } from "../../shared/providers/meta/graph.ts";
import { classifyMetaRefusal } from "../../shared/providers/meta/refusals.ts";
import { MetaUploadError } from "../../shared/providers/meta/rupload.ts";
import { choosePage, pageHandle } from "../../cli/meta-connect.ts";

const graph = (code: number, subcode?: number, status = 400) => new MetaGraphError(status, { message: "m", code, subcode }, "call");
const NOW = new Date("2026-12-06T10:00:00Z");

describe("classifyMetaRefusal", () => {
  test("an expired, invalidated or removed token, or a permission taken back, needs a new connect", () => {
    for (const error of [graph(190, 463), graph(190, 460), graph(190, 458), graph(10), graph(200)]) {
      expect(classifyMetaRefusal(error, NOW)?.kind).toBe("needs_reconnect");
    }
    expect(classifyMetaRefusal(new MetaUploadError(400, "NotAuthorizedError", "no", false, "upload"), NOW)?.kind).toBe("needs_reconnect");
  });

  test("the publishing limit (code 9) and the throttles (4, 17, 32, 613, 8000x) wait", () => {
    expect(classifyMetaRefusal(graph(9, 2207042), NOW)).toEqual({ kind: "posting_limit", reason: "Meta's publishing limit is reached (code 9/2207042)" });
    for (const code of [4, 17, 32, 613, 80001, 80002]) {
      expect(classifyMetaRefusal(graph(code), NOW)).toMatchObject({ kind: "rate_limited", notBefore: new Date("2026-12-06T11:00:00Z") });
    }
  });

  test("anything else is no refusal: an outage, a container error, a bad parameter, another error class", () => {
    for (
      const error of [
        graph(2, undefined, 503),
        graph(9007, 2207027),
        graph(100),
        new MetaUploadError(503, "ServiceUnavailable", "x", true, "u"),
        new Error("x"),
      ]
    ) {
      expect(classifyMetaRefusal(error, NOW)).toBeNull();
    }
  });
});

describe("choosing the Page to connect", () => {
  const pages = [
    { id: "101", name: "Sky Facts", pageToken: "t", instagramAccountId: "901" },
    { id: "102", name: "Kitchen Notes", pageToken: "t", instagramAccountId: null },
  ];
  test("by id, by name in any case, or by the Instagram @username; the only Page without asking", () => {
    expect(choosePage(pages, "102").id).toBe("102");
    expect(choosePage(pages, "sky facts").id).toBe("101");
    expect(choosePage(pages, "@sky_facts", new Map([["101", "sky_facts"]])).id).toBe("101");
    expect(choosePage(pages.slice(0, 1), null).id).toBe("101");
  });
  test("several Pages and no --page, or an unknown one, are refused naming the Pages", () => {
    expect(() => choosePage(pages, null)).toThrow("Sky Facts (101), Kitchen Notes (102)");
    expect(() => choosePage(pages, "Other")).toThrow('no Page "Other"');
    expect(() => choosePage([], null)).toThrow("manages no Facebook Page");
  });
  test("a Page's name as a handle is one word", () => {
    expect(pageHandle("  Sky   Facts ")).toBe("Sky-Facts");
  });
});
