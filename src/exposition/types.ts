// The parsed Prometheus text format, as the parser returns it.
/** One sample of a parsed Prometheus exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface MetricFamily {
  name: string;
  help?: string;
  type: MetricType;
  samples: Sample[];
}
