import { AdmissionTerms, AdmitStep, RestatedTerms, TermsField } from './admission-store';

/** The terms an admission step fixes, without their time (the store adds its own). */
export function termsOf(step: AdmitStep): Omit<AdmissionTerms, 'admittedAtMs'> {
  const { lease, payment } = step;
  return {
    payment,
    model: lease.model,
    ...(payment === 'paid' && lease.hold ? { hold: { ...lease.hold, amountMicro: step.worstMicro } } : {}),
    maxTokens: lease.maxTokens ?? 0,
    ...(step.keyId ? { keyId: step.keyId } : {}),
  };
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** An admission record as the store keeps it (JSON), or undefined when the text is not one. */
export function parseAdmissionTerms(text: string): AdmissionTerms | undefined {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof r !== 'object' || r === null) return undefined;
  if ((r.payment !== 'paid' && r.payment !== 'free') || typeof r.model !== 'string') return undefined;
  if (!isCount(r.maxTokens) || !isCount(r.admittedAtMs)) return undefined;
  const hold = r.hold as Record<string, unknown> | undefined;
  if (hold !== undefined && !(isCount(hold.amountMicro) && isCount(hold.inputMicroPerMillion) && isCount(hold.outputMicroPerMillion)))
    return undefined;
  if (r.keyId !== undefined && typeof r.keyId !== 'string') return undefined;
  return {
    payment: r.payment,
    model: r.model,
    ...(hold
      ? {
          hold: {
            amountMicro: hold.amountMicro as number,
            inputMicroPerMillion: hold.inputMicroPerMillion as number,
            outputMicroPerMillion: hold.outputMicroPerMillion as number,
          },
        }
      : {}),
    maxTokens: r.maxTokens,
    admittedAtMs: r.admittedAtMs,
    ...(r.keyId !== undefined ? { keyId: r.keyId } : {}),
  };
}

/** The first restated term that disagrees with the admission record, or undefined (as FINISH_ADMITTED checks it). */
export function disagreement(record: AdmissionTerms, restated: RestatedTerms): TermsField | undefined {
  if (record.payment !== restated.payment) return 'payment';
  if (record.model !== restated.model) return 'model';
  const [r, g] = [record.hold, restated.hold];
  if (g !== undefined) {
    if (r === undefined) return 'hold';
    if (
      r.amountMicro !== g.amountMicro ||
      r.inputMicroPerMillion !== g.inputMicroPerMillion ||
      r.outputMicroPerMillion !== g.outputMicroPerMillion
    )
      return 'hold';
  }
  if (restated.admittedAtMs !== undefined && restated.admittedAtMs !== record.admittedAtMs) return 'admitted_at';
  return undefined;
}
