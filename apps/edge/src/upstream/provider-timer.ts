/**
 * Marks of a provider call's time, in the order they come: the call goes out, the provider's
 * headers arrive, its reply has been read to the end (or the call failed). The request's
 * overhead and provider durations are measured from them.
 */
export interface ProviderTimer {
  called(): void;
  answered(): void;
  ended(): void;
}
