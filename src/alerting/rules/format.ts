// Words and numbers as the alert annotations print them ("1 minute", "75%", "2m").
import { formatDuration } from '../../config/duration.js';

const UNITS: Array<[number, string]> = [
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

/** "1 minute", "10 minutes", "1 hour"; mixed values fall back to the Go form ("1m30s"). */
export function durationWords(ms: number): string {
  for (const [size, word] of UNITS) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${word}${n === 1 ? '' : 's'}`;
    }
  }
  return formatDuration(ms);
}

/** PromQL/Prometheus rule duration ("1m", "1h", "90s"). */
export function promDuration(ms: number): string {
  return formatDuration(ms);
}

export function percent(ratio: number): string {
  return `${Math.round(ratio * 10_000) / 100}%`;
}
