/** The dashboard's one stylesheet (style.css beside this file), read once. */
import { readFileSync } from "node:fs";

export const STYLE_CSS = readFileSync(new URL("./style.css", import.meta.url), "utf8");
