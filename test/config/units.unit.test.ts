import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  parseByteSize,
  parseDuration,
  parseListenAddress,
  isLoopbackHost,
} from '../../src/config/index.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['15s', 15_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1_500],
    ['.5s', 500],
    ['2m3s4ms', 123_004],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['2000000ns', 2],
    ['0', 0],
  ])('%s = %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(['', '15', 's', '1d', '15 s', '1h-30m', 'abc', '1.s5', '--1s'])('rejects %j with a clear message', (text) => {
    expect(() => parseDuration(text)).toThrow(/^invalid duration ".*": .+/);
  });

  it('names the accepted units when the unit is wrong', () => {
    expect(() => parseDuration('3d')).toThrow('unknown unit; expected a number with a unit (ns, us, ms, s, m, h)');
    expect(() => parseDuration('30')).toThrow('missing unit');
  });

  it('formats whole milliseconds back to Go style', () => {
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(1_500)).toBe('1s500ms');
    expect(parseDuration(formatDuration(3_723_004))).toBe(3_723_004);
  });
});

describe('parseByteSize', () => {
  it.each([
    ['256MiB', 256 * 1024 * 1024],
    ['4MB', 4_000_000],
    ['512KiB', 512 * 1024],
    ['1GiB', 1024 ** 3],
    ['1.5KiB', 1536],
    ['10 kB', 10_000],
    ['1024', 1024],
    ['100B', 100],
    [4096, 4096],
    [0, 0],
  ] as const)('%j = %d bytes', (input, bytes) => {
    expect(parseByteSize(input)).toBe(bytes);
  });

  it.each(['', 'MiB', '12XB', '-1KiB', '1.5B', 'lots'])('rejects %j', (text) => {
    expect(() => parseByteSize(text)).toThrow(/^invalid byte size/);
  });

  it('rejects negative, fractional and non-finite numbers', () => {
    expect(() => parseByteSize(-1)).toThrow(/non-negative/);
    expect(() => parseByteSize(1.5)).toThrow(/whole number/);
    expect(() => parseByteSize(Number.POSITIVE_INFINITY)).toThrow(/invalid byte size/);
  });
});

describe('parseListenAddress', () => {
  it('parses IPv4, host names and bracketed IPv6', () => {
    expect(parseListenAddress('0.0.0.0:9715')).toEqual({ host: '0.0.0.0', port: 9715 });
    expect(parseListenAddress('localhost:80')).toEqual({ host: 'localhost', port: 80 });
    expect(parseListenAddress('[::1]:9715')).toEqual({ host: '::1', port: 9715 });
    expect(parseListenAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it.each(['9715', '::1:9715', '0.0.0.0:65536', '0.0.0.0:', 'host:port', ':9715', '[nothost]:1', 'bad host:1'])(
    'rejects %j',
    (text) => {
      expect(() => parseListenAddress(text)).toThrow(/^invalid listen address/);
    },
  );
});

describe('isLoopbackHost', () => {
  it('accepts 127.0.0.0/8, ::1 and localhost only', () => {
    for (const h of ['127.0.0.1', '127.9.8.7', '[::1]', '::1', 'localhost', 'LOCALHOST'])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['128.0.0.1', '10.0.0.1', 'localhost.example.org', '127.0.0.1.nip.io', '[::2]'])
      expect(isLoopbackHost(h)).toBe(false);
  });
});
