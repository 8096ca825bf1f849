import './tracing';
import { runService } from '@gw/service-kit';
import { loadConfig } from './config';
import { startEdgeApp } from './edge-app';

runService('edge', loadConfig(process.env), startEdgeApp);
