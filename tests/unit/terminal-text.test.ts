import { expect, test } from "bun:test";
import { formatDeadLetters } from "../../cli/commands/dlq.ts";
import { apiError, networkError } from "../../cli/errors.ts";
import { formatTable, printJson, printLine, printLines, println, type Screen, terminalText } from "../../cli/output.ts";

/** What a hostile operator field may hold: colour, cursor moves, a line rewrite, a C1 CSI, DEL, bidi overrides. */
const HOSTILE = "name\x1b[31m red\x1b[2J\rfake\n2nd line\x9b1A\x7f\u202egnp.exe\u2066\u200f\t";

/** Anything a terminal acts on besides the printer's own line breaks. */
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function screen() {
  let text = "";
  const out: Screen = { write: (chunk: string) => (text += chunk) };
  return { out, text: () => text };
}

test("terminalText writes every control, line breaks included, as a visible escape", () => {
  const shown = terminalText(HOSTILE);
  expect(shown).not.toMatch(ACTIVE);
  expect(shown).not.toContain("\n");
  expect(shown).toContain("\\u001b[31m");
  expect(shown).toContain("\\u000d");
  expect(shown).toContain("\\u009b");
  expect(shown).toContain("\\u007f");
  expect(shown).toContain("\\u202e");
  expect(shown).toContain("\\u2066");
  expect(shown).toContain("\\u200f");
  expect(terminalText("plain text, ünïcode, 日本語")).toBe("plain text, ünïcode, 日本語");
});

test("printLine and printLines keep each entry on one line", () => {
  const { out, text } = screen();
  printLine(out, `dimension ${HOSTILE} paused`);
  printLines(out, [`  display_name ${HOSTILE}`, "  language en"]);
  const lines = text().split("\n");
  expect(lines).toHaveLength(4);
  expect(lines.at(-1)).toBe("");
  expect(text()).not.toMatch(ACTIVE);
});

test("println keeps the program's own line breaks and makes every other control visible", () => {
  const { out, text } = screen();
  println(out, "usage:\n  mdame status\x1b]0;title\x07");
  expect(text()).toBe("usage:\n  mdame status\\u001b]0;title\\u0007\n");
});

test("tables escape their cells before measuring, so columns stay aligned", () => {
  const rows = formatTable(["id", "name", "error"], [["1", "a\x1b[1mb", "boom\r\nfake row"], ["22", "plain", "-"]]);
  for (const row of rows) expect(row).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(rows).toHaveLength(3);
  const column = rows[0]!.indexOf("error");
  expect(rows[1]!.indexOf("boom")).toBe(column);
  expect(rows[2]!.indexOf("-")).toBe(column);
});

test("dead letters from the server print without live controls", () => {
  const lines = formatDeadLetters(
    [
      {
        id: 7,
        queue_name: "render\u202e",
        msg_id: 3,
        read_ct: 5,
        message: {},
        last_error: `ffmpeg failed${HOSTILE}`,
        created_at: new Date(0).toISOString(),
        retried_at: null,
        retried_msg_id: null,
        unit_id: null,
        run_id: null,
      } as unknown as Parameters<typeof formatDeadLetters>[0][number],
    ],
    0,
    400,
  );
  for (const line of lines) expect(line).not.toMatch(ACTIVE);
});

test("JSON output escapes what JSON.stringify leaves raw and still parses back to the same value", () => {
  const { out, text } = screen();
  const value = { name: HOSTILE, note: "\u2028\u2029\u0085" };
  printJson(out, value);
  expect(text()).not.toMatch(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u);
  expect(JSON.parse(text())).toEqual(value);
});

test("errors quoted from the server reach the terminal with their controls visible", () => {
  const refused = apiError(409, { error: `run is locked\x1b[2K\rrun completed\n` }, "http://api/runs");
  expect(refused.message).not.toMatch(ACTIVE);
  expect(refused.message).not.toContain("\n");
  const failed = apiError(500, { error: "internal error", error_id: "id\u202e" }, "http://api/runs");
  expect(failed.message).toContain("\\u202e");
  const issues = apiError(400, { error: "bad", issues: [{ code: "custom", path: ["a\x1b"], message: "m\x1b[0m" }] }, "http://api/runs");
  expect(issues.message).not.toMatch(ACTIVE);
  expect(networkError("http://api", new Error("reset\x1b[31m")).message).not.toMatch(ACTIVE);
});
