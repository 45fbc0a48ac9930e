import { z } from "zod";

/** One Zod issue as an error answer carries it: bounded, never the whole input (shared/http/error-handler.ts). */
export const ErrorIssue = z.object({
  code: z.string(),
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
  /** The unknown fields of an `unrecognized_keys` issue. */
  keys: z.array(z.string()).optional(),
}).strict();
export type ErrorIssue = z.infer<typeof ErrorIssue>;

/**
 * The body of every error answer of the Edge Functions: a message, the contract issues of a 400,
 * how many issues were left out, and for a 500 the id to find in the log.
 */
export const ErrorAnswer = z.object({
  error: z.string(),
  issues: z.array(ErrorIssue).optional(),
  more_issues: z.number().int().positive().optional(),
  error_id: z.string().optional(),
}).strict();
export type ErrorAnswer = z.infer<typeof ErrorAnswer>;
