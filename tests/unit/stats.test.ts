import { expect, test } from "bun:test";
import { quantile } from "../../shared/stats.ts";

test("the median is the middle value, or the mean of the middle two", () => {
  expect(quantile([35.9, 34.2, 34.9], 0.5)).toBe(34.9);
  expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
});

test("other quantiles interpolate between the nearest ranks; the input is left unsorted", () => {
  const values = [10, 0, 20, 30, 40];
  expect(quantile(values, 0)).toBe(0);
  expect(quantile(values, 1)).toBe(40);
  expect(quantile(values, 0.95)).toBeCloseTo(38, 10);
  expect(values).toEqual([10, 0, 20, 30, 40]);
});

test("no values: NaN", () => {
  expect(quantile([], 0.5)).toBeNaN();
});
