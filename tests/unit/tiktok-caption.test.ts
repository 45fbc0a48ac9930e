/**
 * The TikTok post's caption: title, description and hashtags, within TikTok's 2,200 UTF-16 code
 * units, never ending on half a character.
 */
import { expect, test } from "bun:test";
import { tiktokCaption } from "../../functions/pipeline/platforms/tiktok.ts";

test("title, description and hashtags, each hashtag with its #", () => {
  expect(tiktokCaption({ title: " Why tides turn ", description: "The moon pulls.", hashtags: ["#shorts", "ocean"] }))
    .toBe("Why tides turn\n\nThe moon pulls.\n\n#shorts #ocean");
  expect(tiktokCaption({ title: "Only a title", description: "", hashtags: [] })).toBe("Only a title");
});

test("a long caption is cut to 2,200 code units, never between the halves of a surrogate pair", () => {
  const long = tiktokCaption({ title: "t", description: "x".repeat(5000), hashtags: [] });
  expect(long.length).toBe(2200);
  // An emoji (two code units) straddling the limit is dropped whole.
  const description = `${"x".repeat(2200 - 3 - 1)}😀tail`;
  const cut = tiktokCaption({ title: "t", description, hashtags: [] });
  expect(cut.length).toBe(2199);
  expect(cut.endsWith("x")).toBe(true);
  expect(() => encodeURIComponent(cut)).not.toThrow();
});
