import './tracing';
import { runService } from '@gw/service-kit';
import { loadConfig } from './config';
import { startQuotaApp } from './quota-app';

runService('quota-service', loadConfig(process.env), startQuotaApp);
