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

/**
 * The source revision the build was made from (dist/build-info.json, written by `npm run build`); unknown when run from
 * source.
 */
export const REVISION: string = (() => {
  try {
    const info = JSON.parse(readFileSync(new URL('./build-info.json', import.meta.url), 'utf8')) as {
      revision?: string;
    };
    return info.revision || 'unknown';
  } catch {
    return 'unknown';
  }
})();

/** What ledger_exporter_build_info says and `--version` prints. */
export const BUILD_INFO = { version: VERSION, revision: REVISION, nodejs_version: process.version } as const;

/** What `--version` prints, as Prometheus tools print theirs. */
export function versionText(program: string): string {
  return (
    `${program}, version ${VERSION} (revision: ${REVISION})\n` +
    `  node version: ${process.version}\n` +
    `  platform:     ${process.platform}/${process.arch}\n`
  );
}
