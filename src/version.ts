import { readFileSync } from 'node:fs';

/** The package version, read once from package.json beside src/ or dist/. */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

/** What `--version` prints, as Prometheus tools print theirs. */
export function versionText(program: string): string {
  return `${program}, version ${VERSION}\n  node version: ${process.version}\n  platform:     ${process.platform}/${process.arch}\n`;
}
