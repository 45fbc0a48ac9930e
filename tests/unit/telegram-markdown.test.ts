import { describe, expect, test } from "bun:test";
import { parseMarkdownV2 } from "../../emulators/telegram/markdown-v2.ts";
import { escapeMarkdownV2, MARKDOWN_V2_RESERVED, splitMarkdownV2 } from "../../shared/providers/telegram/markdown-v2.ts";
import { scrubToken } from "../../shared/providers/telegram/bot-api.ts";
import { alertMessages, formatAlert, redactSecrets } from "../../functions/pipeline/alerts/format.ts";

const EVERY_SPECIAL = "a_b*c[d]e(f)g~h`i>j#k+l-m=n|o{p}q.r!s\\t";

describe("MarkdownV2 escaping", () => {
  test("every reserved character is escaped and Telegram's parser gives the text back", () => {
    expect(MARKDOWN_V2_RESERVED.length).toBe(19);
    const escaped = escapeMarkdownV2(EVERY_SPECIAL);
    for (const ch of MARKDOWN_V2_RESERVED) expect(escaped).toContain(`\\${ch}`);
    expect(parseMarkdownV2(escaped)).toEqual({ ok: true, text: EVERY_SPECIAL });
  });

  test("text of every reserved character, repeated and mixed with Unicode, round-trips", () => {
    const text = `${MARKDOWN_V2_RESERVED.repeat(3)} émoji 🎬 "quotes" \n new line \\\\ done.`;
    expect(parseMarkdownV2(escapeMarkdownV2(text))).toEqual({ ok: true, text });
  });

  test("an unescaped reserved character is refused as Telegram refuses it", () => {
    expect(parseMarkdownV2("Run failed.")).toEqual({
      ok: false,
      error: "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    });
    expect(parseMarkdownV2("*bold")).toMatchObject({ ok: false, error: expect.stringContaining("Can't find end of Bold entity") });
  });

  test("entities parse to their plain text", () => {
    expect(parseMarkdownV2("*Run failed* · tech\\-explained\n`mdame dlq retry 1`")).toEqual({
      ok: true,
      text: "Run failed · tech-explained\nmdame dlq retry 1",
    });
    expect(parseMarkdownV2("[docs](https://example.com/a\\)b) __u__ ~s~ ||x|| _i_")).toEqual({ ok: true, text: "docs u s x i" });
  });
});

describe("splitting", () => {
  const escapedAt = (piece: string, index: number) => {
    let n = 0;
    for (let i = index - 1; i >= 0 && piece[i] === "\\"; i -= 1) n += 1;
    return n % 2 === 1;
  };

  test("no piece over the limit, no escape cut, order kept, pieces join to the text", () => {
    // One long line of nothing but escapes: every cut point is next to a backslash.
    const text = escapeMarkdownV2(".".repeat(5000) + "!".repeat(3001));
    const pieces = splitMarkdownV2(text);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(4096);
      expect(escapedAt(piece, piece.length)).toBe(false);
      expect(parseMarkdownV2(piece).ok).toBe(true);
    }
    expect(pieces.map((p) => parseMarkdownV2(p)).map((r) => (r.ok ? r.text : "")).join("")).toBe(".".repeat(5000) + "!".repeat(3001));
  });

  test("a cut prefers a line boundary", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}: ${"x".repeat(40)}`);
    const pieces = splitMarkdownV2(escapeMarkdownV2(lines.join("\n")));
    for (const piece of pieces.slice(0, -1)) expect(piece.endsWith("\n")).toBe(true);
    expect(pieces.join("")).toBe(escapeMarkdownV2(lines.join("\n")));
  });

  test("a surrogate pair is never cut", () => {
    const text = "a" + "🎬".repeat(3000);
    const pieces = splitMarkdownV2(text);
    for (const piece of pieces) expect(piece).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(pieces.join("")).toBe(text);
  });
});

describe("alert text", () => {
  const alert = {
    id: "00000000-0000-4000-8000-000000000001",
    claim_token: "00000000-0000-4000-8000-000000000002",
    kind: "dead_letter" as const,
    dimension_id: "tech-explained",
    dedupe_key: "k",
    summary: "A render task was dead-lettered (3 attempts): ffmpeg exited 1.",
    details: { queue: "render", attempts: 3, error: "key sk-very-secret-value leaked?", fix: "mdame dlq retry 12" },
    photo_key: null,
    occurrences: 2,
    attempts: 1,
    created_at: "2026-12-02T10:00:00.000Z",
    last_raised_at: "2026-12-02T11:00:00.000Z",
    chat_id: null,
  };

  test("an alert's message parses, names its kind, dimension and details, and carries no secret", () => {
    const text = formatAlert(alert, ["sk-very-secret-value"]);
    const parsed = parseMarkdownV2(text);
    expect(parsed.ok).toBe(true);
    const plain = parsed.ok ? parsed.text : "";
    expect(plain).toContain("Dead letter · tech-explained");
    expect(plain).toContain("Happened 2 times");
    expect(plain).toContain("fix: mdame dlq retry 12");
    expect(plain).not.toContain("sk-very-secret-value");
  });

  test("with a photo, the caption fits 1024 characters and the rest follows", () => {
    const long = formatAlert({ ...alert, summary: "word. ".repeat(400) });
    const { caption, texts } = alertMessages(long, true);
    expect(caption!.length).toBeLessThanOrEqual(1024);
    expect(caption! + texts.join("")).toBe(long);
  });

  test("the bot token is scrubbed from network error text", () => {
    const token = "123456:ABCdefGHIjklMNOpqrSTUvwx";
    expect(scrubToken(`error sending request for url (https://api.telegram.org/bot${token}/sendMessage)`, token)).not.toContain("ABCdefGHI");
    expect(redactSecrets("a secret-value-1 b", ["secret-value-1"])).toBe("a [redacted] b");
  });
});

describe("the weekly report's CommonMark", () => {
  test("headings, bold and links become MarkdownV2; escaped titles stay literal; every piece parses", async () => {
    const { commonMarkToMarkdownV2 } = await import("../../functions/pipeline/alerts/commonmark.ts");
    const markdown = [
      "# Weekly report · tech-explained",
      "**Published:** 12 of 14 (85.7%)",
      "| video | views |",
      "| --- | ---: |",
      "| [A \\*hostile\\* \\[title\\]\\(x\\) \\#1](https://youtu.be/abc_d-1) | 1,204 |",
      "Best: \\*\\*not bold\\*\\* ~ `code` > quote",
    ].join("\n");
    const converted = commonMarkToMarkdownV2(markdown);
    const parsed = parseMarkdownV2(converted);
    expect(parsed).toEqual({
      ok: true,
      text: [
        "Weekly report · tech-explained",
        "Published: 12 of 14 (85.7%)",
        "| video | views |",
        "",
        "| A *hostile* [title](x) #1 | 1,204 |",
        "Best: **not bold** ~ `code` > quote",
      ].join("\n"),
    });
    expect(converted).toContain("](https://youtu.be/abc_d-1)");
    const long = commonMarkToMarkdownV2(Array.from({ length: 300 }, (_, i) => `**row ${i}** ${"x".repeat(30)} \\| [t](https://e.x/${i})`).join("\n"));
    for (const piece of [...splitMarkdownV2(long), ...splitMarkdownV2(long, 1024)]) expect(parseMarkdownV2(piece).ok).toBe(true);
  });
});
