import { parser } from '@prometheus-io/lezer-promql';

/** What a PromQL expression is made of, as Prometheus's own grammar (lezer-promql) reads it. */
export interface PromqlReading {
  /** Where the grammar could not read the text; empty for a valid expression. */
  errors: string[];
  /** The metric names the expression selects. */
  metrics: string[];
}

/** Grafana's interval variables, given the value Grafana would for a 5-minute window. */
const GRAFANA_VARIABLES: [RegExp, string][] = [[/\$__rate_interval|\$__interval|\$__range/g, '5m']];

/** Reads `expr` (Grafana's variables allowed) with the PromQL grammar of the Prometheus UI. */
export function readPromql(expr: string): PromqlReading {
  const text = GRAFANA_VARIABLES.reduce((t, [pattern, value]) => t.replace(pattern, value), expr);
  const errors: string[] = [];
  const metrics = new Set<string>();
  const cursor = parser.parse(text).cursor();
  do {
    if (cursor.type.isError) errors.push(`cannot read "${text.slice(cursor.from, cursor.to + 10)}" at ${cursor.from}`);
    if (cursor.name === 'VectorSelector') {
      const selector = cursor.node.getChild('Identifier');
      if (selector) metrics.add(text.slice(selector.from, selector.to));
    }
  } while (cursor.next());
  return { errors, metrics: [...metrics].sort() };
}
