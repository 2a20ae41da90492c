// Writes dist/build-info.json after the compile (`npm run build`): the revision the build was made
// from, for ledger_exporter_build_info and --version. From git where the checkout has it; in an
// image build (no .git in the context) from the REVISION build argument.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

function revision(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim();
  } catch {
    return process.env.REVISION?.trim() || 'unknown';
  }
}

const file = new URL('./build-info.json', import.meta.url);
writeFileSync(file, `${JSON.stringify({ revision: revision() })}\n`);
