import type { z } from "zod";
import { isOneLineText, unstorableTextReason } from "../text/storable.ts";

/**
 * The rules every operator text field of a contract adds to its string schema, so what the
 * operator API and `mdame` accept is text the database stores exactly and a terminal prints as
 * written (shared/text/storable.ts).
 */

const ONE_LINE_MESSAGE = "must be one line of plain text: no control characters (escape sequences, line breaks, tabs, NUL), bidi controls or lone surrogates";

/** A name-like field (a display name, a font, a keyword, a handle, a reason shown in a list): one line, nothing a terminal acts on. */
export function oneLine<T extends z.ZodType<string, string>>(schema: T): T {
  return schema.refine(isOneLineText, ONE_LINE_MESSAGE);
}

/** A multi-line field (a description): text the database stores exactly (no NUL, no lone surrogate). */
export function storableText<T extends z.ZodType<string, string>>(schema: T): T {
  return schema.superRefine((text, ctx) => {
    const reason = unstorableTextReason(text);
    if (reason) ctx.addIssue({ code: "custom", message: reason });
  });
}
