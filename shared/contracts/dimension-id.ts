import { z } from "zod";

/**
 * A dimension's id, as `mdame.dimensions` checks it (`dimensions_id_check`): 2-41 characters,
 * lower-case letters, digits, '-' or '_', starting with a letter or digit. The one spelling of
 * the pattern: contracts, queue messages and the CLI's arguments all take it from here.
 */
export const DIMENSION_ID = /^[a-z0-9][a-z0-9_-]{1,40}$/;

export const DimensionId = z.string().regex(
  DIMENSION_ID,
  "must be 2-41 characters: lower-case letters, digits, '-' or '_', starting with a letter or digit",
);
export type DimensionId = z.infer<typeof DimensionId>;
