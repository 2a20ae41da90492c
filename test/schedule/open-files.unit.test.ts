import { describe, expect, it } from 'vitest';
import {
  OPEN_FILES_HEADROOM,
  openFilesWarning,
  parseOpenFilesLimit,
  readOpenFilesLimit,
} from '../../src/schedule/openFiles.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`;

describe('open-files limit', () => {
  it('reads soft and hard limits from /proc/<pid>/limits text', () => {
    expect(parseOpenFilesLimit(LIMITS)).toEqual({ soft: 20000, hard: 20000 });
    expect(parseOpenFilesLimit(LIMITS.replace('20000                20000', '1024                 unlimited'))).toEqual(
      { soft: 1024, hard: Infinity },
    );
    expect(parseOpenFilesLimit('Max cpu time unlimited unlimited seconds\n')).toBeUndefined();
  });

  it('warns only when one socket per node plus headroom exceeds the soft limit, naming how to raise it', () => {
    const limit = { soft: 1024, hard: 65536 };
    expect(openFilesWarning(1024 - OPEN_FILES_HEADROOM, limit)).toBeUndefined();
    const w = openFilesWarning(1024 - OPEN_FILES_HEADROOM + 1, limit);
    expect(w).toContain(`raise it to at least ${1024 + 1}`);
    expect(w).toContain('hard limit, 65536');
    expect(w).toMatch(/LimitNOFILE/);
    expect(w).toMatch(/--ulimit nofile=/);
    expect(openFilesWarning(100_000, { soft: 20000, hard: 20000 })).not.toContain('hard limit');
    expect(openFilesWarning(10_000, undefined)).toBeUndefined();
  });

  it('reads this process limit on Linux', () => {
    if (process.platform !== 'linux') return void console.log('skipped: /proc/self/limits is Linux only');
    const limit = readOpenFilesLimit();
    expect(limit?.soft).toBeGreaterThan(0);
    expect(limit!.hard).toBeGreaterThanOrEqual(limit!.soft);
  });
});
