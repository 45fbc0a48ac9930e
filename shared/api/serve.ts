/**
 * What every function serving declared routes (shared/api/routes) uses: the app, whose failed
 * request checks reach its onError, and `reply`, which shapes an answer by its declaration.
 */
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import type { z } from "zod";
import { answer } from "../http/answer.ts";
import { type AnswerSchema, answerSchema, routeName } from "./kit.ts";

/** An app whose failed request checks reach its onError as the ZodError they are (400 with the issues). */
export function createApiApp<E extends Env = Env>() {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) throw result.error;
    },
  });
}

/**
 * The answer a route declares for `status`, parsed by its schema before it leaves (a mismatch is
 * the engine's fault: 500 with an id in the log), sent as JSON.
 */
export function reply<R extends RouteConfig, S extends keyof R["responses"] & number>(
  c: Context,
  route: R,
  status: S,
  value: z.input<AnswerSchema<R, S>>,
): never {
  const shaped = answer(answerSchema(route, status), value, routeName(route));
  return c.json(shaped, status as never) as never;
}
