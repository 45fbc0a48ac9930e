/**
 * A chart's SVG rasterised as PNG by resvg (WebAssembly: no native code), in Bun processes only: the render-runner for the weekly report's alert, the CLI for
 * `mdame report --chart`. A rasterisation holds about 70-100 MB more than the process did, which
 * the Edge's 256 MB per worker cannot spare (docs/reports/benchmarks.md). resvg-wasm loads no
 * system fonts: the charts' one face, DejaVu Sans, ships beside this file (fonts/, with its licence)
 * and is the only font resvg is given. The WebAssembly module and the font are read once per
 * process, on the first chart.
 */
import { initWasm, Resvg } from "@resvg/resvg-wasm";
// Imported as files (Bun): paths on disk when run from the repository, embedded in the executable
// by `npm run build:workers` (a worker machine has neither the repository nor node_modules).
import wasmFile from "@resvg/resvg-wasm/index_bg.wasm" with { type: "file" };
import { readFile } from "node:fs/promises";
import { CHART_PNG_SCALE } from "./chart-png-scale.ts";
import { CHART_FONT } from "./weekly-charts.ts";
import fontFile from "./fonts/DejaVuSans.ttf" with { type: "file" };

export { CHART_PNG_SCALE };

let loaded: Promise<Uint8Array> | null = null;

/** Loads the WebAssembly module once and returns the font's bytes. */
function load(): Promise<Uint8Array> {
  loaded ??= (async () => {
    await initWasm(await readFile(wasmFile));
    return new Uint8Array(await readFile(fontFile));
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
