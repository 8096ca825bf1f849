import { readPromql } from './promql';

describe('readPromql', () => {
  it('names the metrics an expression selects, Grafana variables allowed', () => {
    expect(readPromql('histogram_quantile(0.95, sum by (le, model) (rate(edge_provider_ttfb_seconds_bucket[$__rate_interval])))')).toEqual({
      errors: [],
      metrics: ['edge_provider_ttfb_seconds_bucket'],
    });
    expect(readPromql('sum(rate(a_total{code=~"5.."}[5m])) / sum(rate(b_total[5m])) > 0.05').metrics).toEqual(['a_total', 'b_total']);
    expect(readPromql('delta(max(quota_settle_outbox_backlog)[15m:1m]) > 0').errors).toEqual([]);
  });

  it('tells where an expression cannot be read', () => {
    expect(readPromql('sum(rate(edge_requests_total[5m])').errors).not.toEqual([]);
    expect(readPromql('rate(edge_requests_total{code=}[5m])').errors).not.toEqual([]);
    expect(readPromql('max by (state edge_provider_breaker_state').errors).not.toEqual([]);
  });
});
