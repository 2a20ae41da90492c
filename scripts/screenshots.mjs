// Regenerates the status page screenshots of the README (docs/images/): the demo fleet with a
// few faults switched on, the demo's alerting (its alerts on the page) and its watched validators,
// miners and accounts, desktop and phone, light and dark. Run: npm run screenshots
import { mkdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBrowser, chromiumAvailable, CHROMIUM_PATH } from './browser.mjs';
import { startDaemon } from '../dist/daemon/index.js';
import { standardComponents } from '../dist/daemon/features.js';
import { demoAlerting } from '../dist/demo/alerting.js';
import { startConsoleReceiver } from '../dist/demo/consoleReceiver.js';
import { demoConfig, startDemoFleet } from '../dist/demo/fleet.js';
import { createLogger } from '../dist/logger.js';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'images');
const INTERVAL_MS = 2000;

if (!chromiumAvailable()) {
  console.error(`chromium not found at ${CHROMIUM_PATH}: apt-get install chromium (or set CHROMIUM_PATH)`);
  process.exit(1);
}
await mkdir(OUT, { recursive: true });
const dir = await mkdtemp(join(tmpdir(), 'lfe-shots-'));
const fleet = await startDemoFleet({ blockTimeMs: 1000, controlPort: false });
// The notifications go nowhere: the page is what is shot.
const receiver = await startConsoleReceiver(() => undefined);
const config = {
  ...demoConfig(fleet, {
    listen: { host: '127.0.0.1', port: 0 },
    intervalMs: INTERVAL_MS,
    evidenceDir: join(dir, 'evidence'),
  }),
  alerting: demoAlerting(dir, receiver.url),
};
const logger = createLogger({ level: 'silent' });
const daemon = await startDaemon(config, { logger, defaultMetrics: false, components: standardComponents(logger) });
try {
  // A node behind a dead proxy and one that hangs, so the page shows what an incident looks like.
  fleet.node('val-us-1').setFault('hang');
  fleet.node('miner-ap-1').setFault('stalled');
  await new Promise((r) => setTimeout(r, 40_000));
  const shots = [
    { name: 'status-desktop.png', path: '/', viewport: { width: 1360, height: 900 }, colorScheme: 'light' },
    { name: 'status-desktop-dark.png', path: '/', viewport: { width: 1360, height: 900 }, colorScheme: 'dark' },
    {
      name: 'status-phone.png',
      path: '/',
      viewport: { width: 390, height: 844 },
      colorScheme: 'light',
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    },
    {
      name: 'node-desktop.png',
      path: '/nodes/test-proxy',
      viewport: { width: 1360, height: 1100 },
      colorScheme: 'light',
    },
  ];
  for (const s of shots) {
    const b = await openBrowser({
      viewport: s.viewport,
      colorScheme: s.colorScheme,
      isMobile: s.isMobile,
      hasTouch: s.hasTouch,
      deviceScaleFactor: s.deviceScaleFactor ?? 1,
    });
    try {
      const page = await b.context.newPage();
      await page.goto(daemon.url + s.path);
      await page.waitForTimeout(1500);
      await page.screenshot({ path: join(OUT, s.name), fullPage: true });
      console.log(`wrote docs/images/${s.name}`);
    } finally {
      await b.close();
    }
  }
} finally {
  await daemon.close();
  await receiver.close();
  await fleet.close();
  await rm(dir, { recursive: true, force: true });
}
