/**
 * A chart's SVG rasterised as PNG by resvg (WebAssembly, so the same in Deno and Bun, no native
 * code). resvg-wasm loads no system fonts: the charts' one face, DejaVu Sans, ships beside this file
 * (fonts/, with its licence) and is the only font resvg is given. The WebAssembly module and the font
 * are read once per process, on the first chart.
 */
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { CHART_FONT } from "./weekly-charts.ts";

/** The PNG's pixels per SVG pixel: 1, about 1250 px wide, under the 1280 px Telegram scales a photo to; more costs the Edge memory it lacks (docs/reports/benchmarks.md). */
export const CHART_PNG_SCALE = 1;

/**
 * The files read at run time: the font, then resvg's WebAssembly module. supabase/config.toml deploys
 * both beside the pipeline function (`static_files`; tests/unit/deploy-check.test.ts holds it to this).
 */
export function chartRuntimeFiles(): [font: string, wasm: string] {
  return [fileURLToPath(new URL("./fonts/DejaVuSans.ttf", import.meta.url)), createRequire(import.meta.url).resolve("@resvg/resvg-wasm/index_bg.wasm")];
}

let loaded: Promise<Uint8Array> | null = null;

/** Loads the WebAssembly module once and returns the font's bytes. */
function load(): Promise<Uint8Array> {
  loaded ??= (async () => {
    const [font, wasm] = chartRuntimeFiles();
    await initWasm(await readFile(wasm));
    return new Uint8Array(await readFile(font));
  })().catch((error) => {
    loaded = null;
    throw error;
  });
  return loaded;
}

/** The SVG as PNG bytes, CHART_PNG_SCALE times its size. */
export async function chartPng(svg: string): Promise<Uint8Array<ArrayBuffer>> {
  const font = await load();
  const resvg = new Resvg(svg, {
    fitTo: { mode: "zoom", value: CHART_PNG_SCALE },
    font: { fontBuffers: [font], defaultFontFamily: CHART_FONT, sansSerifFamily: CHART_FONT },
  });
  try {
    const image = resvg.render();
    try {
      return image.asPng() as Uint8Array<ArrayBuffer>;
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
