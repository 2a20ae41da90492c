// A time read back from disk is a number the file says, not a time until checked: one outside the
// range a Date holds (±8.64e15 ms) would make every later toISOString() throw (an HTTP 500 on
// /api/alerts for as long as the alert is active). Schemas of files the exporter reads back use
// `diskTime`, so an entry with such a time is refused with the file's other damage (set aside,
// salvaged entry by entry, one log line saying what was dropped).
import { z } from 'zod';

export const MAX_DATE_MS = 8.64e15;

export const isDateMs = (t: number): boolean => Number.isFinite(t) && Math.abs(t) <= MAX_DATE_MS;

/** Epoch milliseconds a Date can hold. */
export const diskTime = z.number().refine(isDateMs, { message: 'not a time (outside the range of a Date)' });
