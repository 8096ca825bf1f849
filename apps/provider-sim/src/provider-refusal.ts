/** A request the simulated provider will not serve, before any reply is planned. */
export interface ProviderRefusal {
  status: number;
  message: string;
  /** The request field at fault, or null when no single field is. */
  param: string | null;
}

/** Builds a {@link ProviderRefusal}. */
export function refusal(status: number, message: string, param: string | null = null): ProviderRefusal {
  return { status, message, param };
}
