import { z } from "zod";

/**
 * The column types the operator API's answers share, spelled once: ids, counts and instants as a
 * JSON answer carries them.
 */

export const uuid = z.string().uuid();

/** How many of something: a whole number, zero or more. */
export const count = z.number().int().nonnegative();

/** An instant as JSON text (ISO 8601), as a timestamptz column reaches an answer. */
export const timestamp = z.string();
