// Imported first by main.ts: tracing has to start before the packages it instruments are loaded.
// The edge is where traces start: a caller's traceparent is not continued.
import { startTracing } from '@gw/telemetry';

startTracing('edge', { continueIncomingTraces: false });
