/** The keep-up bench reads how many passes a day the housekeeping schedule makes from its cron form. */
import { expect, test } from "bun:test";
import { passesPerDay } from "../../scripts/bench/housekeeping-keep-up.ts";

test("every N minutes is 1,440 / N passes a day; a schedule of another form is refused", () => {
  expect(passesPerDay("*/10 * * * *")).toBe(144);
  expect(passesPerDay("* * * * *")).toBe(1440);
  expect(passesPerDay("*/15 * * * *")).toBe(96);
  expect(() => passesPerDay("30 3 * * *")).toThrow("is not every N minutes");
  expect(() => passesPerDay("*/7 * * * *")).toThrow("does not divide the hour");
});
