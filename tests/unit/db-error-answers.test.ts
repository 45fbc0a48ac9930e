/**
 * The engine's SQLSTATE codes as HTTP answers (shared/db/errors.ts mapped by shared/http/error-handler.ts):
 * an error a caller can act on is a 4xx with the database's message, never a 500.
 */
import { expect, test } from "bun:test";
import { Hono } from "hono";
import { InvalidSettingError, mapDbError } from "../../shared/db/errors.ts";
import { createErrorHandler } from "../../shared/http/error-handler.ts";
import { createLogger } from "../../shared/logging/logger.ts";

/** What postgres.js throws for a raised exception: an Error carrying the SQLSTATE as `code`. */
const postgresError = (code: string, message: string) => Object.assign(new Error(message), { code });

function answering(error: Error) {
  const app = new Hono();
  app.onError(createErrorHandler(createLogger("test", { write: () => {} })));
  app.get("/", () => {
    throw error;
  });
  return app.request("/");
}

test("MDV01, a setting the database cannot take, is a 400 with the database's message", async () => {
  const message = "publishing.time_zone: unknown time zone Nowhere/Land on this database server";
  expect(mapDbError(postgresError("MDV01", message))).toBeInstanceOf(InvalidSettingError);
  const response = await answering(postgresError("MDV01", message));
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({ error: message });
});

test("the codes around it keep their answers: MDN01 404, MDS01 409, an unknown code 500", async () => {
  expect((await answering(postgresError("MDN01", "no dimension x"))).status).toBe(404);
  expect((await answering(postgresError("MDS01", "wrong state"))).status).toBe(409);
  expect((await answering(postgresError("23514", "violates check constraint"))).status).toBe(500);
});
