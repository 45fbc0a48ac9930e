import { expect, test } from "bun:test";
import { Backoff } from "../../shared/backoff.ts";

test("waits grow exponentially up to the cap when the jitter draws its maximum", () => {
  const backoff = new Backoff({ initialMs: 100, maxMs: 1_000, random: () => 0.999999 });
  const waits = Array.from({ length: 7 }, () => backoff.next());
  expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
  expect(backoff.failures).toBe(7);
});

test("full jitter spreads each wait between the least wait and the current ceiling", () => {
  const draws = [0, 0.5, 0.25, 0];
  const backoff = new Backoff({ initialMs: 100, maxMs: 10_000, random: () => draws.shift()! });
  // Ceilings 100, 200, 400, 800.
  expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([100, 150, 175, 100]);
});

test("a success starts the next streak from the least wait", () => {
  const backoff = new Backoff({ initialMs: 50, maxMs: 5_000, random: () => 0.999999 });
  for (let i = 0; i < 10; i++) backoff.next();
  backoff.reset();
  expect(backoff.failures).toBe(0);
  expect(backoff.next()).toBe(50);
});

test("a long outage keeps the wait at the cap", () => {
  const backoff = new Backoff({ initialMs: 500, maxMs: 30_000, random: () => 0.999999 });
  let last = 0;
  for (let i = 0; i < 5_000; i++) last = backoff.next();
  expect(last).toBe(30_000);
});

test("refuses bounds that would let a loop spin", () => {
  expect(() => new Backoff({ initialMs: 0, maxMs: 100 })).toThrow();
  expect(() => new Backoff({ initialMs: 200, maxMs: 100 })).toThrow();
});
