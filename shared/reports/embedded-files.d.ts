/** Files imported `with { type: "file" }` (Bun): the import is the file's path. */
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.ttf" {
  const path: string;
  export default path;
}
