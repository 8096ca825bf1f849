import './tracing';
import { runService } from '@gw/service-kit';
import { loadConfig } from './config';
import { startConsoleApp } from './console-app';

runService('console', loadConfig(process.env), startConsoleApp);
