// Imported first by main.ts: tracing has to start before the packages it instruments are loaded.
import { startTracing } from '@gw/telemetry';

startTracing('notifier', { continueIncomingTraces: true });
