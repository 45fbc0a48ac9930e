/** The Instagram caption and Facebook description built from a script, within Instagram's limits. */
import { describe, expect, test } from "bun:test";
import { CAPTION_MAX_CHARS, CAPTION_MAX_HASHTAGS, metaCaption } from "../../functions/pipeline/platforms/meta-caption.ts";

describe("metaCaption", () => {
  test("title, description and hashtags, each hashtag once with its #", () => {
    expect(metaCaption({ title: " Auroras ", description: "Why the sky glows.", hashtags: ["#space", "science", " "] })).toBe(
      "Auroras\n\nWhy the sky glows.\n\n#space #science",
    );
  });

  test("hashtags past Instagram's 30 are left out, counting those the text already has", () => {
    const tags = Array.from({ length: 40 }, (_, i) => `#t${i}`);
    const caption = metaCaption({ title: "Title #one", description: "Text #two", hashtags: tags });
    expect(caption.match(/(^|\s)#[^\s#]+/g)!.length).toBe(CAPTION_MAX_HASHTAGS);
    expect(caption).toContain("#t27");
    expect(caption).not.toContain("#t28");
  });

  test("a long text is cut to 2,200 characters without splitting one", () => {
    const caption = metaCaption({ title: "🌌".repeat(1500), description: "x".repeat(2000), hashtags: [] });
    expect([...caption].length).toBeLessThanOrEqual(CAPTION_MAX_CHARS);
    expect(caption).not.toMatch(/[\uD800-\uDBFF]$/);
  });
});
