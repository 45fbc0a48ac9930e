/**
 * The weekly report's chart: for each day of the week, bars of the units published, rejected and
 * failed, with a labelled count axis, the days under the bars, a legend and a title. Drawn on a
 * raster and encoded as PNG (png.ts): no browser, no native code, the same in Deno and Bun.
 */
import type { WeeklyReport } from "../contracts/weekly-report.ts";
import { glyph, GLYPH_HEIGHT, textWidth } from "./bitmap-font.ts";
import { createRaster, encodePng, fillRect, type Raster, type Rgb } from "./png.ts";

export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 480;

const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [40, 40, 40];
const GRID: Rgb = [225, 225, 225];
const SERIES = [
  { key: "published", label: "published", color: [46, 139, 87] as Rgb },
  { key: "rejected", label: "rejected", color: [230, 159, 0] as Rgb },
  { key: "failed", label: "failed", color: [204, 51, 51] as Rgb },
] as const;
const DAY_NAMES = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"];

function drawText(raster: Raster, text: string, x: number, y: number, scale: number, color: Rgb): void {
  let cursor = Math.round(x);
  for (const ch of text) {
    const rows = glyph(ch);
    rows.forEach((row, ry) =>
      row.forEach((on, rx) => {
        if (on) fillRect(raster, cursor + rx * scale, y + ry * scale, scale, scale, color);
      })
    );
    cursor += 6 * scale;
  }
}

/** A step for the count axis giving at most about five gridlines: 1, 2, 5, 10, 20, 50... */
export function axisStep(max: number): number {
  if (max <= 5) return 1;
  for (let magnitude = 1;; magnitude *= 10) {
    for (const base of [1, 2, 5]) {
      if (max / (base * magnitude) <= 5) return base * magnitude;
    }
  }
}

/** The chart as a raster (for tests that look at pixels) and its PNG encoding. */
export function drawWeeklyChart(report: WeeklyReport): Raster {
  const raster = createRaster(CHART_WIDTH, CHART_HEIGHT, WHITE);
  const title = `${report.dimension_id}  ${report.week_start} TO ${report.week_end} (${report.time_zone})`;
  drawText(raster, title.slice(0, 60), 24, 18, 2, INK);

  const left = 80, right = CHART_WIDTH - 24, top = 70, bottom = CHART_HEIGHT - 90;
  const highest = Math.max(0, ...report.daily.flatMap((d) => [d.published, d.rejected, d.failed]));
  const step = axisStep(highest);
  const ceiling = Math.max(step, Math.ceil(highest / step) * step);
  const yOf = (value: number) => bottom - (value / ceiling) * (bottom - top);

  for (let value = 0; value <= ceiling; value += step) {
    const y = Math.round(yOf(value));
    fillRect(raster, left, y, right - left, 1, GRID);
    const label = String(value);
    drawText(raster, label, left - 10 - textWidth(label, 2), y - GLYPH_HEIGHT, 2, INK);
  }
  drawText(raster, "UNITS", 10, top - 24, 2, INK);
  fillRect(raster, left, top, 2, bottom - top, INK);
  fillRect(raster, left, bottom, right - left, 2, INK);

  const slot = (right - left) / 7;
  const barWidth = Math.floor((slot - 16) / SERIES.length);
  report.daily.forEach((day, i) => {
    const x0 = left + i * slot + 8;
    SERIES.forEach((series, s) => {
      const value = day[series.key];
      if (value > 0) fillRect(raster, x0 + s * barWidth, yOf(value), barWidth - 2, bottom - yOf(value), series.color);
    });
    const name = DAY_NAMES[i]!;
    const center = left + i * slot + slot / 2;
    drawText(raster, name, center - textWidth(name, 2) / 2, bottom + 10, 2, INK);
    const date = day.date.slice(5);
    drawText(raster, date, center - textWidth(date, 2) / 2, bottom + 30, 2, INK);
  });

  let x = left;
  for (const series of SERIES) {
    fillRect(raster, x, CHART_HEIGHT - 30, 16, 16, series.color);
    drawText(raster, series.label, x + 24, CHART_HEIGHT - 29, 2, INK);
    x += 24 + textWidth(series.label, 2) + 32;
  }
  return raster;
}

/** The weekly chart as PNG bytes (CHART_WIDTH x CHART_HEIGHT). */
export function renderWeeklyChart(report: WeeklyReport): Uint8Array {
  return encodePng(drawWeeklyChart(report));
}
