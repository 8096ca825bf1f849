import { Admission, AdmissionQuestion, Admitted } from '../admission/admission';
import { notRun } from '../admission/chat-admission';
import { Verdict } from '../admission/verdict';
import { OlderAdmission } from './older-admission';

/** After an Admit was not run (an older quota-service), the edge asks again this much later. */
const OLDER_RETRY_MS = 30_000;

/**
 * Admission during a rolling upgrade from the previous release: an older quota-service answers
 * Admit UNIMPLEMENTED (on its EdgeCalls stream, a oneof case it cannot read), having done
 * nothing. The request then takes the older path, and the edge keeps to it for OLDER_RETRY_MS
 * before asking Admit again.
 */
export class OlderQuotaFallback implements Admission {
  private olderUntilMs = 0;

  constructor(
    private readonly current: Admission,
    private readonly older: OlderAdmission,
  ) {}

  refuseRemembered(accountId: string): Verdict {
    return this.current.refuseRemembered(accountId);
  }

  countRefusedBody(accountId: string): Promise<Verdict> {
    return this.current.countRefusedBody(accountId);
  }

  async admit(q: AdmissionQuestion): Promise<Verdict<Admitted>> {
    if (Date.now() >= this.olderUntilMs) {
      try {
        return await this.current.admit(q);
      } catch (err) {
        if (!notRun(err)) throw err;
        this.olderUntilMs = Date.now() + OLDER_RETRY_MS;
      }
    }
    return this.older.admit(q);
  }
}
