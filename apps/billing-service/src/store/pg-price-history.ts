import { Database } from '@gw/service-kit';
import { PriceHistoryStore, PricesAsked } from './price-history-store';

// A row is in force from its in_force_from until a later version of its model comes into force:
// it was in force at some moment of [from, to] when it came before `to` and no later version
// came before `from`.
const IN_FORCE = `
  SELECT EXISTS (
    SELECT 1 FROM billing.price_history h
    WHERE h.model = a.model AND h.input_micro_per_million = a.input AND h.output_micro_per_million = a.output
      AND h.in_force_from <= a.to_at
      AND NOT EXISTS (SELECT 1 FROM billing.price_history nx
        WHERE nx.model = h.model AND nx.version > h.version AND nx.in_force_from <= a.from_at)) AS in_force
  FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::timestamptz[], $5::timestamptz[]) WITH ORDINALITY
    AS a(model, input, output, from_at, to_at, n)
  ORDER BY a.n`;

/** PriceHistoryStore on Postgres (or PGlite): billing.price_history of migration 036, one query per batch. */
export class PgPriceHistory implements PriceHistoryStore {
  constructor(private readonly db: Database) {}

  async inForce(asks: readonly PricesAsked[]): Promise<boolean[]> {
    if (asks.length === 0) return [];
    const { rows } = await this.db.query<{ in_force: boolean }>(IN_FORCE, [
      asks.map((a) => a.model),
      asks.map((a) => a.inputMicroPerMillion),
      asks.map((a) => a.outputMicroPerMillion),
      asks.map((a) => new Date(a.fromMs)),
      asks.map((a) => new Date(a.toMs)),
    ]);
    return rows.map((r) => r.in_force);
  }
}
