// The pages' script, served from /static/status.js like the stylesheet (assets.ts). Written in
// TypeScript under browser/ (DOM types, its own tsconfig) and bundled by `npm run build` into
// dist/static/status.js, which this reads once. Both src/status and dist/status sit two levels
// below the package root, so the same relative path finds the bundle from either.
import { readFileSync } from 'node:fs';

const BUNDLE = new URL('../../dist/static/status.js', import.meta.url);

let script: string | undefined;

/** The bundled page script; throws, naming the fix, when the package was not built. */
export function statusScript(): string {
  try {
    script ??= readFileSync(BUNDLE, 'utf8');
  } catch (err) {
    throw new Error(`the status page script ${BUNDLE.pathname} is missing: run npm run build`, { cause: err });
  }
  return script;
}
