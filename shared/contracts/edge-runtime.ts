import { z } from "zod";

/**
 * What the Edge runtime answers, with HTTP 546, for a request it ended because its worker passed
 * a per-request limit (CPU time, memory or wall clock): Supabase's hosted runtime, and the local
 * edge host that enforces the same limits (stack/edge-gateway.ts).
 */
export const WORKER_LIMIT_STATUS = 546;

export const WorkerLimitAnswer = z.object({
  code: z.literal("WORKER_LIMIT"),
  message: z.string(),
}).strict();
export type WorkerLimitAnswer = z.infer<typeof WorkerLimitAnswer>;
